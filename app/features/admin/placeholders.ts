import { escapeHtml } from "~/features/mail";

/** Spec §5/§9: the word used when a recipient has no name to greet them by. */
export const PLACEHOLDER_FALLBACK = "there";

export interface PlaceholderRecipient {
  username: string | null;
  displayName: string | null;
}

function present(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** What `{{username}}` becomes: the username, else "there". */
export function usernameFor(recipient: PlaceholderRecipient): string {
  return present(recipient.username) ?? PLACEHOLDER_FALLBACK;
}

/** What `{{display_name}}` becomes: the display name, else the username, else "there". */
export function displayNameFor(recipient: PlaceholderRecipient): string {
  return present(recipient.displayName) ?? present(recipient.username) ?? PLACEHOLDER_FALLBACK;
}

const PLACEHOLDER = /\{\{\s*(username|display_name)\s*\}\}/g;

function replacePlaceholders(template: string, username: string, displayName: string): string {
  return template.replace(PLACEHOLDER, (_match, name: string) =>
    name === "username" ? username : displayName,
  );
}

/**
 * Replaces `{{username}}` and `{{display_name}}` (spaces inside the braces allowed) in an
 * HTML body for one recipient. The values are HTML-escaped: a name is text, never markup.
 */
export function applyPlaceholders(html: string, recipient: PlaceholderRecipient): string {
  return replacePlaceholders(
    html,
    escapeHtml(usernameFor(recipient)),
    escapeHtml(displayNameFor(recipient)),
  );
}

/** The same placeholders in plain text (a subject line): the values as they are. */
export function applyTextPlaceholders(text: string, recipient: PlaceholderRecipient): string {
  return replacePlaceholders(text, usernameFor(recipient), displayNameFor(recipient));
}
