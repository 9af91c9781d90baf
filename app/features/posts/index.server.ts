/** The posts feature's public server entry: what other features may import (docs/architecture.md). */

export * from "./feed.server";
export * from "./post-cards.server";
export * from "./posts.server";
export * from "./schemas";
