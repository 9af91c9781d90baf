/** The realtime feature's public server entry: what other features may import (docs/architecture.md). */
// The live bus is core's (notifications publishes on it, and the stream sits above them); the
// fan-out worker still reaches it here until it moves onto the job system.
export { publishLive } from "~/core/live-bus.server";
