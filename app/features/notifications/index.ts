/** The notifications feature's public entry: what other features may import (docs/architecture.md). */
export * from "./describe";
export * from "./kinds";
export * from "./types";
