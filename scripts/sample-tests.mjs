// `node scripts/sample-tests.mjs [count] [seed]`: runs `count` tests (default 50) picked at random
// from `npm test`'s projects, each alone (`vitest run <file> -t <its full name>`), and fails
// unless every one passes on its own — a test that only passes after another one has set
// something up is a defect (issue 37). The seed (default: today's date) makes a pick repeatable.
import { spawnSync } from "node:child_process";

const count = Number(process.argv[2] ?? 50);
const seed = process.argv[3] ?? new Date().toISOString().slice(0, 10);

const listed = spawnSync(
  "npx",
  ["vitest", "list", "--project", "shared", "--project", "isolated", "--json"],
  { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
);
if (listed.status !== 0) {
  console.error(listed.stderr);
  process.exit(1);
}
const all = JSON.parse(listed.stdout.slice(listed.stdout.indexOf("[")));

/** mulberry32 seeded from the seed's characters. */
let state = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pool = [...all];
const picks = [];
while (picks.length < Math.min(count, pool.length)) {
  picks.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
let failed = 0;
for (const test of picks) {
  // vitest matches -t against the describe and test names joined by spaces.
  const pattern = `${escapeRegExp(test.name.split(" > ").join(" "))}$`;
  const run = spawnSync(
    "npx",
    ["vitest", "run", "--project", test.projectName, test.file, "-t", pattern, "--reporter=json"],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  let passed = 0;
  try {
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{")));
    passed = report.numFailedTests === 0 ? report.numPassedTests : 0;
  } catch {
    passed = 0;
  }
  const ok = run.status === 0 && passed >= 1;
  if (!ok) failed++;
  const file = test.file.slice(process.cwd().length + 1);
  console.log(`${ok ? "pass" : "FAIL"}  ${file} :: ${test.name}`);
}
console.log(`${picks.length - failed} of ${picks.length} passed alone (seed ${seed})`);
process.exit(failed === 0 ? 0 : 1);
