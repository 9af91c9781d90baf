// `npm run lint:migrations`: a committed migration never changes. Every database that ran a
// migration keeps what it ran; editing the file afterwards makes new installations differ from
// old ones without anything saying so. drizzle/migrations.sha256 lists each migration's SHA-256
// (`sha256sum` format); this fails when a listed file changed or went, and when a migration is
// not listed yet. `node scripts/check-migrations.mjs --record` adds the new ones — never
// changes a listed hash (to change what a database has, write a new migration).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const DIR = "drizzle";
const LIST = path.join(DIR, "migrations.sha256");

const hashOf = (file) =>
  createHash("sha256")
    .update(readFileSync(path.join(DIR, file)))
    .digest("hex");

const recorded = new Map();
if (existsSync(LIST)) {
  for (const line of readFileSync(LIST, "utf8").split("\n")) {
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line.trim());
    if (match) recorded.set(match[2], match[1]);
  }
}

const migrations = readdirSync(DIR)
  .filter((name) => /^\d{4}_.+\.sql$/.test(name))
  .sort();
const problems = [];
for (const [file, hash] of recorded) {
  if (!migrations.includes(file)) problems.push(`${file} is listed but gone`);
  else if (hashOf(file) !== hash) problems.push(`${file} changed after it was committed`);
}
const unlisted = migrations.filter((file) => !recorded.has(file));

if (process.argv.includes("--record")) {
  const lines = [...recorded].map(([file, hash]) => `${hash}  ${file}`);
  for (const file of unlisted) lines.push(`${hashOf(file)}  ${file}`);
  writeFileSync(LIST, `${lines.join("\n")}\n`);
  process.stdout.write(
    `migrations: recorded ${unlisted.length} new (${unlisted.join(", ") || "none"})\n`,
  );
} else {
  for (const file of unlisted) {
    problems.push(`${file} is not in ${LIST}: run \`node scripts/check-migrations.mjs --record\``);
  }
}

if (problems.length > 0) {
  process.stderr.write(
    `\n  error committed-migrations:\n${problems.map((p) => `    ${p}`).join("\n")}\n\n` +
      "  A migration that ran somewhere stays as it is: put a change in a new migration\n" +
      "  (npm run db:generate, or drizzle-kit generate --custom for SQL of your own).\n",
  );
  process.exit(1);
}
if (!process.argv.includes("--record")) {
  process.stdout.write(`migrations: ${migrations.length} committed, none changed\n`);
}
