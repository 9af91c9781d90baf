/** The auth feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./account-changes.server";
export * from "./accounts.server";
export * from "./better-auth.server";
export * from "./call-auth.server";
export * from "./codes.server";
export * from "./guest.server";
export * from "./oauth.server";
export * from "./password.server";
export * from "./profiles.server";
export * from "./reauth.server";
export * from "./recovery.server";
export * from "./totp-replay.server";
export * from "./two-factor.server";
