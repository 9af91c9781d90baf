/** The mail feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./mail.server";
export * from "./preferences.server";
