import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { type DatabaseHandle, getDb, openDatabase, rowsOf, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import { createTestDatabase, createTestDataDir, type TestDatabase } from "~/db/test-db.server";
import { queueFanOut } from "~/features/feed/fanout-jobs.server";
import { settleJourneyAggregates } from "~/features/journey/aggregates.server";
import { confirmListenImport, createListenImport } from "~/features/journey/import.server";
import { computeJourneyStats, computeJourneyStatsFromPlays } from "~/features/journey/stats.server";
import { requestDataExport } from "~/features/settings/export-archive.server";
import { requestUnfurl } from "~/features/unfurl/unfurl.server";
import { insertAccounts, type LiveAccount, signIn } from "../tests/support/live-server";
import { freePort } from "../tests/support/ports";
import { productionBuild } from "../tests/support/production-build";

/**
 * Background jobs across kill -9: a history import in the middle of its copy and a data export
 * in the middle of its archive, both cut off by SIGKILL and taken up again by the next start.
 * The import must end with exactly the plays of its files (none lost, none twice), the export
 * with a whole archive holding every play, and the journey aggregates (their jobs cut off too)
 * equal to the plays, a fan-out reaching every follower once and a link preview stored. Five
 * starts: the first killed mid-copy, the second (the export asked for meanwhile) mid-archive,
 * the third mid-fan-out, the fourth while the preview's request is in flight; the fifth
 * finishes. Runs on PGlite, and on PostgreSQL under `npm run test:pg` (there a job is taken up
 * once its lease runs out, and the last start is two instances). The mail outbox has its own
 * test (server/campaign-crash.test.ts).
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ON_POSTGRES = Boolean(process.env.TEST_DATABASE_URL);
const IMPORTED_PLAYS = 60_000;
const EXPORTED_PLAYS = 300_000;
const IMPORTER: LiveAccount = {
  id: "job-crash-importer",
  email: "importer@job-crash.test",
  username: "job_crash_importer",
  displayName: "Importer",
};
const FOLLOWERS = 40_000;
const POST_ID = "0b5e7a52-4c1f-4f0e-9a7e-000000000041";
const LINK = "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC";
const POSTER: LiveAccount = {
  id: "job-crash-poster",
  email: "poster@job-crash.test",
  username: "job_crash_poster",
  displayName: "Poster",
};
const EXPORTER: LiveAccount = {
  id: "job-crash-exporter",
  email: "exporter@job-crash.test",
  username: "job_crash_exporter",
  displayName: "Exporter",
};

interface Server {
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

/** A Spotify extended-history file of `count` distinct plays, one every 3 minutes. */
function spotifyHistory(count: number): string {
  const start = Date.UTC(2022, 0, 1);
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      ts: new Date(start + i * 180_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      ms_played: 200_000,
      master_metadata_track_name: `Song ${i}`,
      master_metadata_album_artist_name: `Artist ${i % 97}`,
      master_metadata_album_album_name: `Album ${i % 13}`,
      incognito_mode: false,
      episode_name: null,
    })),
  );
}

/**
 * An oEmbed server standing in for Spotify's: it holds the first request open (the server is
 * killed meanwhile) and answers every later one.
 */
async function startFakeOembed(): Promise<{
  origin: string;
  requests: () => number;
  stop: () => Promise<void>;
}> {
  let requests = 0;
  const held: import("node:http").ServerResponse[] = [];
  const server = createHttpServer((_req, res) => {
    requests++;
    if (requests === 1) {
      held.push(res);
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        version: "1.0",
        type: "rich",
        title: "Crash Song",
        author_name: "The Fences",
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests: () => requests,
    stop: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function unzipLines(bytes: Buffer, name: string): Promise<number> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, opened) =>
      error || !opened ? reject(error) : resolve(opened),
    ),
  );
  for (;;) {
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      zip.once("entry", resolve);
      zip.once("end", () => resolve(null));
      zip.once("error", reject);
      zip.readEntry();
    });
    zip.removeAllListeners();
    if (!entry) throw new Error(`${name} is not in the archive`);
    if (entry.fileName !== name) continue;
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (error, opened) =>
        error || !opened ? reject(error) : resolve(opened),
      ),
    );
    let lines = 0;
    for await (const part of stream) {
      for (const byte of part as Buffer) if (byte === 10) lines++;
    }
    return lines;
  }
}

describe(`jobs cut off by kill -9 and taken up again, on ${ON_POSTGRES ? "PostgreSQL" : "PGlite"}`, () => {
  let buildDir: string;
  let dataDir: string;
  let base: string;
  let port: number;
  let testDb: TestDatabase | undefined;
  let running: Server | undefined;
  let oembed: Awaited<ReturnType<typeof startFakeOembed>>;
  /** A second instance (PostgreSQL): several runners on one database. */
  const others: Server[] = [];
  let importId: string;
  let exportId: string;

  function start(onPort = port): Server {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (key.startsWith("VITEST") || key.startsWith("GITHUB_CLIENT_")) continue;
      if (["DATABASE_URL", "SMTP_URL", "BASE_URL", "TEST_DATABASE_URL"].includes(key)) continue;
      env[key] = value;
    }
    let output = "";
    const child = spawn(process.execPath, [path.join(buildDir, "server.mjs")], {
      cwd: ROOT,
      env: {
        ...env,
        NODE_ENV: "production",
        PORT: String(onPort),
        HOST: "127.0.0.1",
        BASE_URL: base,
        DATA_DIR: dataDir,
        ...(testDb?.databaseUrl ? { DATABASE_URL: testDb.databaseUrl } : {}),
        SOUNDTRAIL_BUILD_DIR: buildDir,
        SHUTDOWN_DRAIN_SECONDS: "0",
        TRUST_PROXY: "on",
        // The jobs' steps are logged at debug: the kill lands between two of them.
        LOG_LEVEL: "debug",
        UNFURL_LINKS: "on",
        UNFURL_SPOTIFY_URL: `${oembed.origin}/oembed`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const server = { child, output: () => output, exited };
    if (onPort === port) running = server;
    else others.push(server);
    return server;
  }

  async function waitForLog(server: Server, test: (line: string) => boolean, what: string) {
    const deadline = Date.now() + 240_000;
    for (;;) {
      if (server.output().split("\n").some(test)) return;
      if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
      if (Date.now() > deadline) throw new Error(`no ${what} in 4 minutes:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async function kill9(server: Server): Promise<void> {
    server.child.kill("SIGKILL");
    await server.exited;
    running = undefined;
  }

  async function openData(): Promise<DatabaseHandle> {
    if (testDb) return testDb;
    return openDatabase({ dataDir: path.join(dataDir, "pglite") });
  }

  beforeAll(async () => {
    buildDir = await productionBuild();
    oembed = await startFakeOembed();
    dataDir = mkdtempSync(path.join(tmpdir(), "st-job-crash-"));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    let handle: DatabaseHandle;
    if (ON_POSTGRES) {
      testDb = await createTestDatabase();
      handle = testDb;
    } else {
      await createTestDataDir(path.join(dataDir, "pglite"));
      handle = await openData();
      await migrateDatabase(handle);
    }
    setDatabase(handle);
    try {
      await insertAccounts(handle.db, [IMPORTER, EXPORTER, POSTER]);
      // The poster's followers: a fan-out of FOLLOWERS / 1000 batches.
      await handle.db.execute(sql`insert into "user" (id, name, email, email_verified)
        select 'job-crash-follower-' || i, 'Follower ' || i, 'follower' || i || '@job-crash.test', true
        from generate_series(1, ${FOLLOWERS}) i`);
      await handle.db.execute(sql`insert into follows (follower_id, followee_id)
        select 'job-crash-follower-' || i, ${POSTER.id} from generate_series(1, ${FOLLOWERS}) i`);
      // The importer's files are read and confirmed: the copy is a queued job.
      const file = path.join(dataDir, "endsong_0.json");
      writeFileSync(file, spotifyHistory(IMPORTED_PLAYS));
      const preview = await createListenImport({
        userId: IMPORTER.id,
        files: [{ name: "endsong_0.json", path: file }],
      });
      expect(preview.total).toBe(IMPORTED_PLAYS);
      importId = (await confirmListenImport({ userId: IMPORTER.id, importId: preview.id })).id;
      // The exporter has a long history; the archive is asked for once the import was cut off.
      await handle.db.execute(sql`
        insert into listens (user_id, listened_at, duration_ms, artist_name, track_name,
          release_name, artist_key, track_key, release_key, source)
        select ${EXPORTER.id}, timestamptz '2020-01-01' + make_interval(mins => i), 180000,
          'Artist ' || (i % 211), 'Track ' || i, 'Album ' || (i % 17), 'artist ' || (i % 211),
          'track ' || i, 'album ' || (i % 17), 'scrobble'
        from generate_series(1, ${EXPORTED_PLAYS}) i`);
    } finally {
      setDatabase(undefined);
      if (!ON_POSTGRES) await handle.close();
    }
  }, 600_000);

  afterAll(async () => {
    if (running) await kill9(running);
    for (const other of others.splice(0)) {
      other.child.kill("SIGKILL");
      await other.exited;
    }
    await testDb?.destroy();
    await oembed?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("finishes the import with exactly its plays, the export with a whole archive, the fan-out to every follower once, the link preview", async () => {
    // First cut: the import past its fifth copy step (of thirty), before its end.
    let server = start();
    await waitForLog(
      server,
      (line) => /"import copy step"/.test(line) && /"processed":(1\d|[2-9]\d)\d{3}\b/.test(line),
      "fifth import step",
    );
    await kill9(server);
    expect(server.output()).not.toMatch(/listening history import done/);

    // The exporter asks for their data while the server is down; the second start takes the
    // import up again and begins the archive, cut off once its first piece is written.
    const handle = await openData();
    setDatabase(handle);
    try {
      exportId = (await requestDataExport({ userId: EXPORTER.id })).id;
    } finally {
      setDatabase(undefined);
      if (!testDb) await handle.close();
    }
    server = start();
    await waitForLog(server, (line) => /"data export piece"/.test(line), "export piece");
    await kill9(server);
    expect(server.output()).not.toMatch(/data export ready/);
    // What finished in the second run needs no waiting for later.
    let said = server.output();

    // A poster with many followers posts while the server is down; the third start takes the
    // import and the archive up again and begins the fan-out, cut off after its first batch.
    const data3 = await openData();
    setDatabase(data3);
    try {
      await data3.db.execute(sql`insert into posts (id, author_id, kind, title, audience)
        values (${POST_ID}::uuid, ${POSTER.id}, 'track', 'Crash Song', 'everyone')`);
      await queueFanOut(getDb(), POST_ID);
    } finally {
      setDatabase(undefined);
      if (!testDb) await data3.close();
    }
    server = start();
    await waitForLog(server, (line) => /"fan-out batch"/.test(line), "fan-out batch");
    await kill9(server);
    expect(server.output()).not.toMatch(/"fan-out done"/);
    said += server.output();

    // A post's link is to be previewed; the fourth start is cut off while the preview's request
    // is in flight (the fake service holds it).
    const data4 = await openData();
    setDatabase(data4);
    try {
      await requestUnfurl(getDb(), LINK);
    } finally {
      setDatabase(undefined);
      if (!testDb) await data4.close();
    }
    server = start();
    await waitForLog(server, () => oembed.requests() > 0, "link preview request");
    await kill9(server);
    said += server.output();

    // The fifth start finishes all four; on PostgreSQL two instances at once, racing for the
    // jobs whose leases ran out (nothing may be done twice).
    server = start();
    const second = ON_POSTGRES ? start(await freePort()) : undefined;
    const until = async (pattern: RegExp, what: string) => {
      const deadline = Date.now() + 240_000;
      for (;;) {
        if (pattern.test(said + server.output() + (second?.output() ?? ""))) return;
        if (server.child.exitCode !== null)
          throw new Error(`the server exited:\n${server.output()}`);
        if (Date.now() > deadline) throw new Error(`no ${what} in 4 minutes:\n${server.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await until(/listening history import done/, "import end");
      await until(/data export ready/, "export end");
      await until(/"fan-out done"/, "fan-out end");
      await until(/"link preview ready"/, "link preview");
    } catch (error) {
      // What the jobs were doing, for the failure's message.
      await kill9(server);
      const handle = await openData();
      try {
        const jobs = rowsOf(
          await handle.db.execute(sql`select id, kind, key, status, attempts, run_at,
            locked_until, last_error from jobs order by id`),
        );
        const imports = rowsOf(
          await handle.db.execute(sql`select status, processed, total, added, error
            from listen_imports`),
        );
        throw new Error(
          `${(error as Error).message}\njobs: ${JSON.stringify(jobs)}\nimports: ${JSON.stringify(imports)}`,
        );
      } finally {
        if (!testDb) await handle.close();
      }
    }

    // The archive downloads whole, with every play.
    const cookie = await signIn(base, EXPORTER.email, "198.51.100.9");
    const response = await fetch(`${base}/settings/data/export/${exportId}`, {
      headers: { Cookie: cookie, "X-Forwarded-For": "198.51.100.9" },
    });
    expect(response.status).toBe(200);
    const archive = Buffer.from(await response.arrayBuffer());
    expect(archive.byteLength).toBe(Number(response.headers.get("Content-Length")));
    expect(await unzipLines(archive, "listens.jsonl")).toBe(EXPORTED_PLAYS);

    for (const other of others.splice(0)) {
      other.child.kill("SIGTERM");
      await other.exited;
    }
    server.child.kill("SIGTERM");
    await server.exited;
    running = undefined;
    const data = await openData();
    try {
      const [result] = rowsOf<{ status: string; processed: number; added: number; plays: number }>(
        await data.db.execute(sql`
          select i.status, i.processed, i.added,
            (select count(*)::int from listens where user_id = ${IMPORTER.id}) as plays
          from listen_imports i where i.id = ${importId}`),
      );
      expect(result).toEqual({
        status: "done",
        processed: IMPORTED_PLAYS,
        added: IMPORTED_PLAYS,
        plays: IMPORTED_PLAYS,
      });
      // Each job ran more than once (the kills did cut them off) and none is left.
      const jobs = rowsOf<{ kind: string; status: string; attempts: number }>(
        await data.db.execute(sql`select kind, status, attempts from jobs
          where kind in ('journey.import', 'settings.data-export', 'feed.fanout', 'unfurl.link')
          order by kind`),
      );
      expect(jobs.map((job) => [job.kind, job.status])).toEqual([
        ["feed.fanout", "done"],
        ["journey.import", "done"],
        ["settings.data-export", "done"],
        ["unfurl.link", "done"],
      ]);
      // The link's preview is stored, from the second request.
      const [preview] = rowsOf<{ status: string; title: string }>(
        await data.db.execute(sql`select status, title from link_unfurls where url = ${LINK}`),
      );
      expect(preview).toEqual({ status: "done", title: "Crash Song" });
      expect(oembed.requests()).toBe(2);
      // Every follower's timeline has the post, once.
      const [timeline] = rowsOf<{ rows: number; people: number }>(
        await data.db.execute(sql`select count(*)::int as rows,
            count(distinct user_id)::int as people
          from home_timeline where post_id = ${POST_ID}::uuid`),
      );
      expect(timeline).toEqual({ rows: FOLLOWERS, people: FOLLOWERS });
      for (const job of jobs) expect(job.attempts).toBeGreaterThanOrEqual(2);

      // The journey aggregates, whose jobs the kills cut off as well (the exporter's history is
      // aggregated from the first start on), end equal to the plays once their jobs are done.
      setDatabase(data);
      try {
        // On PostgreSQL an aggregation a killed instance held is claimable once its lease (60 s)
        // ran out: settle until none is left.
        const deadline = Date.now() + 180_000;
        for (;;) {
          await settleJourneyAggregates();
          const [left] = rowsOf<{ n: number }>(
            await data.db.execute(sql`select count(*)::int as n from jobs
              where kind = 'journey.aggregate' and status <> 'done'`),
          );
          if (left?.n === 0) break;
          if (Date.now() > deadline) throw new Error(`${left?.n} journey aggregations left`);
          await new Promise((r) => setTimeout(r, 1000));
        }
        const end = new Date(Date.UTC(2027, 0, 1));
        for (const userId of [IMPORTER.id, EXPORTER.id]) {
          const options = { userId, start: null, end, now: end };
          expect(await computeJourneyStats(options)).toEqual(
            await computeJourneyStatsFromPlays(options),
          );
        }
      } finally {
        setDatabase(undefined);
      }
    } finally {
      if (!testDb) await data.close();
    }
  }, 900_000);
});
