/** The search feature's public entry: what other features may import (docs/architecture.md). */

export * from "./components/trending-artists";
export * from "./query";
