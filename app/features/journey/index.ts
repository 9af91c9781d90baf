/** The journey feature's public entry: what other features may import (docs/architecture.md). */

export { formatCount, formatListening } from "./components/format";
export * from "./constants";
export * from "./now-playing";
