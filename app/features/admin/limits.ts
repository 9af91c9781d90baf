// The admin area's size limits, shared by the forms (maxLength) and the server's schemas.
// No zod here: the browser loads this file.

/** Longest subject a bulk mail may have. */
export const MAX_SUBJECT_LENGTH = 200;
/** Longest HTML body of one bulk mail (characters). */
export const MAX_HTML_LENGTH = 100_000;
/** Longest request body `/api/send-email-batch` reads (100 mails of 100 000 characters + slack). */
export const MAX_BATCH_REQUEST_BYTES = 12 * 1024 * 1024;
/** Longest moderation reason. */
export const MAX_REASON_LENGTH = 500;
