/** The people feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./people.server";
export * from "./profile-page.server";
