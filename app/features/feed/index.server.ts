/** The feed feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./fanout-jobs.server";
export * from "./timeline.server";
