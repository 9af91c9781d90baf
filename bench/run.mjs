// `npm run bench [-- feed-ssr|feed-query|js-size ...]`: bundles bench/index.ts with esbuild (the
// app's `~/` imports resolve through tsconfig paths, as for tests/support/e2e-seed.ts) and runs it.
import { importBundled } from "../scripts/lib-bundle.mjs";

const { main } = await importBundled("bench/index.ts", "bench");
let code = 1;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
}
// Child servers are stopped by then (and killed on exit if not); nothing else should linger.
process.exit(code);
