/** The notifications feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./notifications.server";
export * from "./preferences.server";
