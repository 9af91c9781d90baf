/** The unfurl feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./unfurl.server";
