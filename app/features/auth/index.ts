/** The auth feature's public entry: what other features may import (docs/architecture.md). */
export * from "./components/account-fields";
export * from "./phone-hint";
