// The operator's commands, bundled and run by scripts/ops.mjs: `npm run db:move`,
// `npm run backup`, `npm run restore`.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { EnvError, parseEnv } from "../lib/env.server";
import { acquirePgliteLock, openDatabase, PGLITE_EXTENSIONS } from "./client.server";
import { countRows, MoveRefused, moveDatabase, TABLES_SQL } from "./move.server";

/** A failure the operator can act on: printed as is, exit code 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

const out = (line: string) => process.stdout.write(`${line}\n`);

function readEnv() {
  try {
    return parseEnv(process.env);
  } catch (error) {
    if (error instanceof EnvError) throw new CommandError(error.message);
    throw error;
  }
}

const redact = (url: string) => url.replace(/:[^:@/]*@/, ":***@");

/** True when `dir` holds a PGlite (PostgreSQL) data directory. */
const isDataDir = (dir: string) => existsSync(path.join(dir, "PG_VERSION"));

// --- npm run db:move -----------------------------------------------------------------------

export async function move(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      to: { type: "string" },
      from: { type: "string" },
      force: { type: "boolean", default: false },
    },
  });
  if (!values.to || !/^postgres(ql)?:\/\//.test(values.to)) {
    throw new CommandError(
      "Usage: npm run db:move -- --to postgres://user:pass@host:5432/db [--from DATA_DIR/pglite] [--force]",
    );
  }
  const env = readEnv();
  const from = path.resolve(values.from ?? path.join(env.DATA_DIR, "pglite"));
  if (!isDataDir(from)) throw new CommandError(`No embedded database found in ${from}.`);
  // Opening takes the data directory's lock: a running server is refused here, so the copy is
  // of a database nobody writes to.
  const source = await openDatabase({ dataDir: from }).catch((error: Error) => {
    throw new CommandError(`${error.message}\nStop the server first: the move needs a pause.`);
  });
  const started = performance.now();
  try {
    out(`Moving ${from} → ${redact(values.to)}`);
    const result = await moveDatabase({
      source,
      targetUrl: values.to,
      force: values.force,
      log: (line) => out(`  ${line}`),
    });
    out(
      `Done in ${((performance.now() - started) / 1000).toFixed(1)} s: ${result.rows} rows in ` +
        `${result.tables.length} tables, every row count equal on both sides.`,
    );
    const secretFile = path.join(env.DATA_DIR, "auth-secret");
    out(
      [
        "",
        "Start Soundtrail on it with:",
        `  DATABASE_URL=${redact(values.to)} npm start`,
        env.AUTH_SECRET
          ? "keeping the same AUTH_SECRET (sessions are signed with it: nobody is signed out)."
          : `keeping DATA_DIR=${env.DATA_DIR}, or setting AUTH_SECRET to the contents of ${secretFile}` +
            " on every instance (sessions are signed with it: nobody is signed out).",
        `The embedded database in ${from} is left as it was; remove it once you are happy.`,
      ].join("\n"),
    );
  } catch (error) {
    if (error instanceof MoveRefused) throw new CommandError(error.message);
    // Anything else (the target refused a row, the connection dropped): the copy ran in one
    // transaction, so the target is as it was.
    const message = error instanceof Error ? error.message : String(error);
    throw new CommandError(
      `The move failed: ${message}\nThe target database was left as it was (the copy is one transaction); the embedded database is untouched.`,
    );
  } finally {
    await source.close();
  }
}

// --- npm run backup ------------------------------------------------------------------------

function timestamp(): string {
  return new Date().toISOString().replaceAll(":", "-").replace(/\..*$/, "Z");
}

/** Runs a PostgreSQL client program; its stderr becomes the error. */
function runTool(program: string, args: string[]): void {
  const result = spawnSync(program, args, { encoding: "utf8" });
  if (result.error) {
    throw new CommandError(
      `${program} could not run (${result.error.message}). Install the PostgreSQL client ` +
        "(Debian: postgresql-client, of the server's major version or newer).",
    );
  }
  if (result.status !== 0) throw new CommandError(`${program} failed:\n${result.stderr.trim()}`);
}

export async function backup(argv: string[]): Promise<string> {
  const { values } = parseArgs({ args: argv, options: { out: { type: "string" } } });
  const env = readEnv();
  const engine = env.DATABASE_URL ? "postgres" : "pglite";
  // By default under DATA_DIR: the one directory the server's user can always write (in the
  // container image the working directory belongs to root).
  const file = path.resolve(
    values.out ??
      path.join(
        env.DATA_DIR,
        "backups",
        `soundtrail-${engine}-${timestamp()}.${engine === "postgres" ? "dump" : "tar.gz"}`,
      ),
  );
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    throw new CommandError(
      `Cannot write the backup to ${path.dirname(file)} (${(error as NodeJS.ErrnoException).code}): ` +
        "pass --out with a file in a directory this user may write.",
    );
  }
  const started = performance.now();
  if (env.DATABASE_URL) {
    // pg_dump reads in one snapshot while the instances keep serving.
    runTool("pg_dump", ["--format=custom", `--file=${file}`, `--dbname=${env.DATABASE_URL}`]);
  } else {
    const dir = path.join(env.DATA_DIR, "pglite");
    if (!isDataDir(dir)) throw new CommandError(`No embedded database found in ${dir}.`);
    const release = (() => {
      try {
        return acquirePgliteLock(dir);
      } catch (error) {
        throw new CommandError(
          `${(error as Error).message}\nOn the embedded database the backup needs a short ` +
            "pause: stop the server, run npm run backup, start it again.",
        );
      }
    })();
    try {
      const pglite = await PGlite.create(dir, { extensions: PGLITE_EXTENSIONS });
      try {
        await pglite.exec("checkpoint");
        const tarball = await pglite.dumpDataDir("gzip");
        writeFileSync(file, new Uint8Array(await tarball.arrayBuffer()));
      } finally {
        await pglite.close();
      }
    } finally {
      release();
    }
  }
  out(
    `Backup of the ${engine === "postgres" ? "PostgreSQL" : "embedded"} database written to ${file} ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
  return file;
}

// --- npm run restore -----------------------------------------------------------------------

/**
 * Which engine a backup file is for, from its first bytes: pg_dump's custom format starts with
 * "PGDMP"; the embedded database's is a gzipped tarball (1f 8b).
 */
function backupKindOf(file: string): "postgres" | "pglite" | null {
  const head = Buffer.alloc(5);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, 5, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString("latin1") === "PGDMP") return "postgres";
  if (head[0] === 0x1f && head[1] === 0x8b) return "pglite";
  return null;
}

export async function restore(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { force: { type: "boolean", default: false } },
  });
  const file = positionals[0] ? path.resolve(positionals[0]) : undefined;
  if (!file || !existsSync(file)) {
    throw new CommandError("Usage: npm run restore -- <backup file> [--force]");
  }
  const env = readEnv();
  const kind = backupKindOf(file);
  if (env.DATABASE_URL && kind !== "postgres") {
    throw new CommandError(
      kind === "pglite"
        ? `${file} is a backup of the embedded database (PGlite): restore it without ` +
            "DATABASE_URL, then move it to PostgreSQL with npm run db:move."
        : `${file} is not a Soundtrail backup (neither pg_dump's custom format nor PGlite's).`,
    );
  }
  if (!env.DATABASE_URL && kind !== "pglite") {
    throw new CommandError(
      kind === "postgres"
        ? `${file} is a backup of a PostgreSQL database (pg_dump): restore it with ` +
            "DATABASE_URL set to an empty PostgreSQL database."
        : `${file} is not a Soundtrail backup (neither pg_dump's custom format nor PGlite's).`,
    );
  }
  const started = performance.now();
  if (env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    let occupied: [string, number][];
    try {
      const tables = (await client.query<{ name: string }>(TABLES_SQL)).rows.map((r) => r.name);
      const counts = await countRows(
        async <T>(text: string) => (await client.query(text)).rows as T[],
        tables,
      );
      occupied = [...counts].filter(([, n]) => n > 0);
      if (tables.length > 0 && !values.force) {
        throw new CommandError(
          `The database already has Soundtrail's tables (${occupied.length} of them with rows). ` +
            "Restore into an empty database, or pass --force to replace what is there.",
        );
      }
    } finally {
      await client.end();
    }
    runTool("pg_restore", [
      "--no-owner",
      "--exit-on-error",
      "--single-transaction",
      ...(values.force ? ["--clean", "--if-exists"] : []),
      `--dbname=${env.DATABASE_URL}`,
      file,
    ]);
  } else {
    const dir = path.join(env.DATA_DIR, "pglite");
    if (existsSync(dir) && readdirSync(dir).some((name) => name !== "soundtrail.lock")) {
      if (!isDataDir(dir) && !values.force) {
        throw new CommandError(`${dir} is not empty; pass --force to move it aside.`);
      }
      // Refuses while a server owns the directory.
      acquirePgliteLock(dir)();
      if (!values.force) {
        throw new CommandError(
          `An embedded database exists in ${dir}. Pass --force to replace it (it is kept, ` +
            "renamed, next to it).",
        );
      }
      const aside = `${dir}.before-restore-${timestamp()}`;
      renameSync(dir, aside);
      out(`The database that was there is kept in ${aside}.`);
    }
    mkdirSync(dir, { recursive: true });
    const release = acquirePgliteLock(dir);
    try {
      const tarball = new Blob([readFileSync(file)]);
      const pglite = await PGlite.create(dir, {
        extensions: PGLITE_EXTENSIONS,
        loadDataDir: tarball,
      });
      await pglite.query("select 1");
      await pglite.close();
    } finally {
      release();
    }
  }
  out(
    `Restored ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s. ` +
      "Start the server (it applies newer migrations if the backup is older than this version).",
  );
}

/** Entry of the scripts: runs `command`, printing a CommandError without a stack. */
export async function main(command: "move" | "backup" | "restore", argv: string[]) {
  try {
    if (command === "move") await move(argv);
    else if (command === "backup") await backup(argv);
    else await restore(argv);
  } catch (error) {
    if (error instanceof CommandError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
}
