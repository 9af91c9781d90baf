/** The journey feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./access.server";
export { queueJourneyAggregate } from "./aggregates.server";
export { type JourneyStatsView, loadJourney, loadJourneyStats } from "./journey-page.server";
export { recordListens } from "./listenbrainz/listens.server";
export type { ValidListen } from "./listenbrainz/validate";
export * from "./now-playing.server";
export { PERIOD_LABELS, periodSearch } from "./period-labels";
export { latestArtistNames } from "./period-stats.server";
export type { JourneyStats, RankedArtist, RankedItem } from "./stats.server";
export * from "./taste.server";
