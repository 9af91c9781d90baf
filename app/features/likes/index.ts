/** The likes feature's public entry: what other features may import (docs/architecture.md). */
export * from "./components/like-button";
