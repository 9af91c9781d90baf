/** The reports feature's public entry: what other features may import (docs/architecture.md). */
export * from "./components/report-form";
export * from "./reasons";
