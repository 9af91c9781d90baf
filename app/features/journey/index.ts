/** The journey feature's public entry: what other features may import (docs/architecture.md). */
export * from "./constants";
export * from "./normalize";
export * from "./now-playing";
