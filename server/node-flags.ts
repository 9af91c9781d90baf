/**
 * The V8 heap limits the server runs with (issue 17, item 6: peak RSS ≤ 300 MB at 50
 * connections). V8 sizes its heap from the machine's memory and, on a large machine, lets
 * garbage pile up to 150–250 MB under load before collecting; the live heap is ~60 MB. A 256 MB
 * old generation and 4 MB semi-spaces keep the peak near the boot size (bench/HISTORY.md, "server
 * memory"), with 4× the live heap as headroom (the history import's worker thread gets the same
 * limit, and peaks at ~75 MB).
 *
 * `npm start` (package.json), the Docker image (Dockerfile, as NODE_OPTIONS so `docker run -e
 * NODE_OPTIONS=…` can change it), the browser tests' server and the bench's server all use
 * these; node-flags.test.ts checks that they agree. An operator who needs more runs
 * `node --max-old-space-size=1024 scripts/start.mjs`.
 */
export const SERVER_NODE_FLAGS = ["--max-old-space-size=256", "--max-semi-space-size=4"] as const;
