/** The journey feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./access.server";
export { queueJourneyAggregate } from "./aggregates.server";
export * from "./now-playing.server";
export { latestArtistNames } from "./period-stats.server";
export * from "./taste.server";
