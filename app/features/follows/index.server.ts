/** The follows feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./follows.server";
export * from "./requests.server";
