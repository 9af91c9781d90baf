/** The people feature's public entry: what other features may import (docs/architecture.md). */
export * from "./components/suggestions";
