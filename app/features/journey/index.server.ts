/** The journey feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./access.server";
export * from "./now-playing.server";
export { latestArtistNames } from "./play-index.server";
export * from "./taste.server";
