/** Most tokens a person may have working at once (revoked ones do not count). */
export const MAX_ACTIVE_LISTEN_TOKENS = 10;
/** Longest token name (the database allows 60). */
export const LISTEN_TOKEN_NAME_MAX = 60;
