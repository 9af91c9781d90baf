/** The posts feature's public entry: what other features may import (docs/architecture.md). */

export * from "./components/feed-list";
export * from "./components/note-text";
export * from "./components/post-card";
export * from "./constants";
export * from "./note";
