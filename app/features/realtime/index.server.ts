/** The realtime feature's public server entry: what other features may import (docs/architecture.md). */
// The live bus is core's (notifications publishes on it, and the stream sits above them); the
// feed's fan-out job still imports it from here (it can take it from core/live-bus.server).
export { publishLive } from "~/core/live-bus.server";
