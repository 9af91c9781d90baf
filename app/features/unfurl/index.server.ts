/** The unfurl feature's public server entry: what other features may import (docs/architecture.md). */

export { assertSafeUrl, FetchRefused, type SafeFetchOptions, safeFetch } from "./safe-fetch.server";
export * from "./unfurl.server";
