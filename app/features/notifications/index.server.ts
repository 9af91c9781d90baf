/** The notifications feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./inbox.server";
export * from "./notify.server";
export * from "./preferences.server";
export * from "./social-events.server";
