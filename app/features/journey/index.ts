/** The journey feature's public entry: what other features may import (docs/architecture.md). */
export * from "./constants";
export * from "./now-playing";
