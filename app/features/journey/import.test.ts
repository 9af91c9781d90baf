import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, asc, eq, sql } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import { afterAll, describe, expect, it } from "vitest";
import { isAppError } from "~/core/errors";
import { getDb, rowsOf } from "~/db/client.server";
import {
  listenImportRows,
  listenImports,
  listens,
  mailOutbox,
  notificationPreferences,
} from "~/db/schema";
import { describeNotification, notificationHref } from "~/features/notifications";
import { listNotifications, unreadCount } from "~/features/notifications/index.server";
import { exportPersonData } from "~/features/settings/index.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as settingsListeningRoute from "~/routes/_app/settings-listening";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  cancelListenImport,
  confirmListenImport,
  createListenImport,
  IMPORT_NOT_FOUND,
  listListenImports,
  settleListenImports,
} from "./import.server";
import type { HistoryFile } from "./importers/read-files.server";
import { setImportReadMode } from "./importers/worker.server";
import { getJourneyStats } from "./stats.server";

const { action: listeningAction, loader: listeningLoader } = atTheEdge(settingsListeningRoute);

withTestDatabase();

const dir = mkdtempSync(path.join(tmpdir(), "soundtrail-import-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function file(name: string, content: string): HistoryFile {
  counter++;
  const at = path.join(dir, `${counter}-${name}`);
  writeFileSync(at, content);
  return { name, path: at };
}

interface Play {
  at: string;
  artist: string;
  track: string;
  ms?: number;
}

/** A Spotify extended history file; `at` is when the play ended (UTC). */
function spotifyFile(plays: Play[], extra: Record<string, unknown>[] = []): string {
  return JSON.stringify([
    ...plays.map((p) => ({
      ts: p.at,
      ms_played: p.ms ?? 200_000,
      master_metadata_track_name: p.track,
      master_metadata_album_artist_name: p.artist,
      master_metadata_album_album_name: `${p.artist} album`,
      incognito_mode: false,
      episode_name: null,
    })),
    ...extra,
  ]);
}

/** `count` distinct plays of a few artists, one every 4 minutes from `start`. */
function manyPlays(count: number, start = Date.UTC(2021, 0, 1)): Play[] {
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(start + i * 240_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    artist: ["Low", "Slowdive", "Beach House"][i % 3] ?? "Low",
    track: `Song ${i}`,
  }));
}

function contextFor(person: TestUser) {
  const context = new RouterContextProvider();
  context.set(viewerContext, {
    id: person.id,
    username: person.username,
    displayName: person.displayName ?? person.username,
  } as unknown as Viewer);
  return context;
}

type Args<F extends (args: never) => unknown> = Parameters<F>[0];

async function listensOf(userId: string) {
  return getDb()
    .select({
      listenedAt: listens.listenedAt,
      track: listens.trackName,
      importId: listens.importId,
    })
    .from(listens)
    .where(eq(listens.userId, userId))
    .orderBy(asc(listens.listenedAt));
}

async function stagedCount(importId: string): Promise<number> {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(listenImportRows)
    .where(eq(listenImportRows.importId, importId));
  return Number(row?.n ?? 0);
}

async function expectAppError(promise: Promise<unknown>, code: string, message?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isAppError(error) && error.code).toBe(code);
  if (message && isAppError(error)) expect(error.message).toBe(message);
}

describe("preview", () => {
  it("shows plays, range, top artists and what is left out, and writes nothing to the history", async () => {
    const ana = await createTestUser();
    const plays = [
      { at: "2020-03-01T10:03:20Z", artist: "Low", track: "Words" },
      { at: "2020-03-01T10:10:00Z", artist: "Low", track: "Lullaby" },
      { at: "2020-03-02T10:10:00Z", artist: "Slowdive", track: "Alison" },
    ];
    const preview = await createListenImport({
      userId: ana.id,
      files: [
        file(
          "Streaming_History_Audio_2020.json",
          spotifyFile(
            [...plays, plays[0] as Play, { ...plays[2], ms: 10_000 } as Play],
            [
              {
                ts: "2020-03-03T10:00:00Z",
                ms_played: 900_000,
                episode_name: "Ep",
                episode_show_name: "S",
              },
              {
                ts: "2020-03-03T11:00:00Z",
                ms_played: 90_000,
                incognito_mode: true,
                master_metadata_track_name: "X",
                master_metadata_album_artist_name: "Y",
              },
              { ts: "bad", ms_played: 90_000 },
            ],
          ),
        ),
      ],
    });
    expect(preview.status).toBe("preview");
    expect(preview.summary).toMatchObject({
      plays: 3,
      firstPlayedAt: "2020-03-01T10:00:00.000Z",
      lastPlayedAt: "2020-03-02T10:06:40.000Z",
      topArtists: [
        { name: "Low", plays: 3 },
        { name: "Slowdive", plays: 1 },
      ],
      skipped: [
        { reason: "Duplicates (already in this upload or in your history)", count: 1 },
        { reason: "Shorter than 30 seconds", count: 1 },
        { reason: "Played in a private (incognito) session", count: 1 },
        { reason: "Podcast episodes", count: 1 },
        { reason: "Broken rows", count: 1 },
      ],
      problems: [
        {
          file: "Streaming_History_Audio_2020.json",
          line: 8,
          message: "Its ts is not a UTC date like 2019-06-01T12:34:56Z.",
        },
      ],
      files: [
        {
          name: "Streaming_History_Audio_2020.json",
          format: "Spotify extended streaming history",
          rows: 8,
        },
      ],
    });
    expect(await listensOf(ana.id)).toEqual([]);
    expect(await stagedCount(preview.id)).toBe(4);
  });

  it("reads the same preview and stages the same plays whether the files are read in a worker thread or not", async () => {
    const ida = await createTestUser();
    const plays = manyPlays(11_000);
    const content = spotifyFile(
      [...plays, plays[3] as Play, { ...(plays[4] as Play), ms: 5_000 }],
      [{ ts: "2021-02-01", ms_played: 90_000 }],
    );
    const staged = async (importId: string) =>
      rowsOf<Record<string, unknown>>(
        await getDb().execute(sql`
          select seq, listened_at, duration_ms, artist_name, track_name, release_name,
            artist_key, track_key, release_key, source
          from ${listenImportRows} where import_id = ${importId} order by seq`),
      );
    const inWorker = await createListenImport({
      userId: ida.id,
      files: [file("Streaming_History_Audio_2021.json", content)],
    });
    const fromWorker = await staged(inWorker.id);
    let inThread: Awaited<ReturnType<typeof createListenImport>>;
    try {
      setImportReadMode("thread");
      inThread = await createListenImport({
        userId: ida.id,
        files: [file("Streaming_History_Audio_2021.json", content)],
      });
    } finally {
      setImportReadMode("worker");
    }
    expect(inThread.summary).toEqual(inWorker.summary);
    expect(inWorker.summary).toMatchObject({
      plays: 11_000,
      skipped: [
        { reason: "Duplicates (already in this upload or in your history)", count: 1 },
        { reason: "Shorter than 30 seconds", count: 1 },
        { reason: "Broken rows", count: 1 },
      ],
      problems: [
        {
          file: "Streaming_History_Audio_2021.json",
          line: 11_003,
          message: "Its ts is not a UTC date like 2019-06-01T12:34:56Z.",
        },
      ],
    });
    expect(fromWorker).toHaveLength(11_001);
    expect(await staged(inThread.id)).toEqual(fromWorker);
  });

  it("keeps names with tabs, backslashes, line breaks and a literal \\N exactly as written", async () => {
    const uma = await createTestUser();
    const names = [
      { artist: "AC\\DC", track: "Tab\there" },
      { artist: "Line\nBreak", track: "Carriage\rReturn" },
      { artist: "\\N", track: "Sigur Rós – Hoppípolla ✓" },
    ];
    const preview = await createListenImport({
      userId: uma.id,
      files: [
        file(
          "Streaming_History_Audio_2022.json",
          spotifyFile(
            names.map((n, i) => ({
              at: `2022-01-0${i + 1}T10:00:00Z`,
              artist: n.artist,
              track: n.track,
            })),
          ),
        ),
      ],
    });
    expect(preview.summary?.plays).toBe(3);
    await confirmListenImport({ userId: uma.id, importId: preview.id });
    await settleListenImports();
    const history = await getDb()
      .select({
        artist: listens.artistName,
        track: listens.trackName,
        release: listens.releaseName,
      })
      .from(listens)
      .where(eq(listens.userId, uma.id))
      .orderBy(asc(listens.listenedAt));
    expect(history).toEqual(names.map((n) => ({ ...n, release: `${n.artist} album` })));
  });

  it("refuses files that hold no listening history, and keeps nothing of them", async () => {
    const ben = await createTestUser();
    await expectAppError(
      createListenImport({ userId: ben.id, files: [file("notes.txt", "hello")] }),
      "invalid",
    );
    expect(await listListenImports({ userId: ben.id })).toEqual([]);
  });

  it("a read cut off by a restart is shown as failed, not as being read forever", async () => {
    const ida = await createTestUser();
    const [cut] = await getDb()
      .insert(listenImports)
      .values({ userId: ida.id, updatedAt: new Date(Date.now() - 20 * 60 * 1000) })
      .returning({ id: listenImports.id });
    const [fresh] = await getDb()
      .insert(listenImports)
      .values({ userId: ida.id })
      .returning({ id: listenImports.id });
    await getDb()
      .insert(listenImportRows)
      .values({
        importId: cut?.id ?? "",
        seq: 1,
        listenedAt: new Date(),
        artistName: "Low",
        trackName: "Words",
        artistKey: "low",
        trackKey: "words",
        source: "spotify",
      });
    const views = await listListenImports({ userId: ida.id });
    expect(views.find((v) => v.id === cut?.id)).toMatchObject({
      status: "failed",
      error: "Reading the files stopped before the preview was ready. Upload them again.",
    });
    // One still being read (recently touched) is left alone.
    expect(views.find((v) => v.id === fresh?.id)?.status).toBe("preview");
    expect(await stagedCount(cut?.id ?? "")).toBe(0);
  });

  it("a cancelled preview deletes its staged plays and adds nothing", async () => {
    const cleo = await createTestUser();
    const preview = await createListenImport({
      userId: cleo.id,
      files: [file("endsong_0.json", spotifyFile(manyPlays(5)))],
    });
    await cancelListenImport({ userId: cleo.id, importId: preview.id });
    const [after] = await listListenImports({ userId: cleo.id });
    expect(after?.status).toBe("cancelled");
    expect(await stagedCount(preview.id)).toBe(0);
    expect(await listensOf(cleo.id)).toEqual([]);
    await expectAppError(
      confirmListenImport({ userId: cleo.id, importId: preview.id }),
      "conflict",
    );
  });
});

describe("import", () => {
  it("copies the plays with progress, notifies the person, and a re-import adds nothing twice", async () => {
    const dan = await createTestUser();
    const plays = manyPlays(12_345);
    const preview = await createListenImport({
      userId: dan.id,
      files: [file("Streaming_History_Audio_2021.json", spotifyFile(plays))],
    });
    expect(preview.summary?.plays).toBe(12_345);
    // Stats computed before the import (cached under the person's listen version) …
    const before = await getJourneyStats({ userId: dan.id, start: null, end: new Date() });
    expect(before.totals.plays).toBe(0);
    const started = await confirmListenImport({ userId: dan.id, importId: preview.id });
    expect(started.status).toBe("importing");
    await settleListenImports();
    // … are not served after it: the copy runs without row triggers, and raises the version itself.
    const after = await getJourneyStats({ userId: dan.id, start: null, end: new Date() });
    expect(after.totals.plays).toBe(12_345);

    const [done] = await listListenImports({ userId: dan.id });
    expect(done).toMatchObject({ status: "done", total: 12_345, processed: 12_345, added: 12_345 });
    expect(await stagedCount(preview.id)).toBe(0);
    const history = await listensOf(dan.id);
    expect(history).toHaveLength(12_345);
    // The start of a play: its end minus what was played.
    expect(history[0]?.listenedAt.toISOString()).toBe("2020-12-31T23:56:40.000Z");
    expect(history.every((l) => l.importId === preview.id)).toBe(true);

    const { notifications } = await listNotifications({ viewerId: dan.id });
    expect(notifications).toHaveLength(1);
    const note = notifications[0];
    expect(note && describeNotification(note)).toBe(
      "Your listening history import is done: 12,345 plays added",
    );
    expect(note && notificationHref(note)).toBe("/settings/listening");
    expect(await unreadCount(dan.id)).toBe(1);
    const exported = await exportPersonData({ userId: dan.id });
    expect(exported.listens).toHaveLength(12_345);
    expect(exported.listens[0]).toMatchObject({
      artistName: "Low",
      trackName: "Song 0",
      releaseName: "Low album",
      durationMs: 200_000,
      source: "spotify_extended",
    });

    // The same file again, plus two new plays: only those are new.
    const again = await createListenImport({
      userId: dan.id,
      files: [
        file(
          "Streaming_History_Audio_2021.json",
          spotifyFile([...plays, ...manyPlays(2, Date.UTC(2022, 5, 1))]),
        ),
      ],
    });
    expect(again.summary?.plays).toBe(2);
    expect(again.summary?.skipped).toEqual([
      { reason: "Duplicates (already in this upload or in your history)", count: 12_345 },
    ]);
    await confirmListenImport({ userId: dan.id, importId: again.id });
    await settleListenImports();
    const [second] = await listListenImports({ userId: dan.id });
    expect(second).toMatchObject({ status: "done", total: 12_347, processed: 12_347, added: 2 });
    expect(await listensOf(dan.id)).toHaveLength(12_347);
    const second_note = (await listNotifications({ viewerId: dan.id })).notifications[0];
    expect(second_note && describeNotification(second_note)).toBe(
      "Your listening history import is done: 2 plays added",
    );
  });

  it("resumes an import cut off by a restart where it stopped, counting every play once", async () => {
    const eve = await createTestUser();
    await getDb()
      .insert(notificationPreferences)
      .values({ userId: eve.id, kind: "listen_import", inApp: false, email: false });
    const preview = await createListenImport({
      userId: eve.id,
      files: [file("endsong_1.json", spotifyFile(manyPlays(7_000)))],
    });
    // Confirmed: the copy is a job, queued...
    await confirmListenImport({ userId: eve.id, importId: preview.id });
    // ...whose process stopped after a first batch of 3,000 had committed with its progress.
    const db = getDb();
    await db.execute(sql`
      insert into ${listens} (user_id, listened_at, duration_ms, artist_name, track_name,
        release_name, artist_key, track_key, release_key, source, import_id)
      select ${eve.id}, listened_at, duration_ms, artist_name, track_name, release_name,
        artist_key, track_key, release_key, source, import_id
      from ${listenImportRows} where import_id = ${preview.id} and seq <= 3000`);
    await db
      .update(listenImports)
      .set({ processed: 3000, added: 3000 })
      .where(eq(listenImports.id, preview.id));

    // Another runner takes the job up and goes on from there.
    await settleListenImports();
    const [done] = await listListenImports({ userId: eve.id });
    expect(done).toMatchObject({ status: "done", processed: 7_000, added: 7_000 });
    expect(await listensOf(eve.id)).toHaveLength(7_000);
    // Turned off in the app: no notification.
    expect((await listNotifications({ viewerId: eve.id })).notifications).toEqual([]);
  });

  it("fails with a clear message, adding nothing, when the staged plays were lost in a crash", async () => {
    const kai = await createTestUser();
    const preview = await createListenImport({
      userId: kai.id,
      files: [file("endsong_4.json", spotifyFile(manyPlays(30)))],
    });
    await confirmListenImport({ userId: kai.id, importId: preview.id });
    // A database that lost its files (staging is logged: only a lost disk empties it).
    await getDb().delete(listenImportRows).where(eq(listenImportRows.importId, preview.id));
    await settleListenImports();
    const [failed] = await listListenImports({ userId: kai.id });
    expect(failed).toMatchObject({
      status: "failed",
      processed: 0,
      added: 0,
      error:
        "The plays read from your files were lost when the server restarted. Nothing was added twice; upload the files again to finish the import.",
    });
    expect(await listensOf(kai.id)).toEqual([]);
  });

  it("a finished import clears its staged plays and leaves another person's preview staged", async () => {
    const lea = await createTestUser();
    const max = await createTestUser();
    const waiting = await createListenImport({
      userId: lea.id,
      files: [file("endsong_5.json", spotifyFile(manyPlays(6)))],
    });
    const mine = await createListenImport({
      userId: max.id,
      files: [file("endsong_6.json", spotifyFile(manyPlays(9)))],
    });
    await confirmListenImport({ userId: max.id, importId: mine.id });
    await settleListenImports();
    expect(await stagedCount(mine.id)).toBe(0);
    expect(await stagedCount(waiting.id)).toBe(6);
    // Then hers: whether the table is truncated or her rows deleted, none are left.
    await confirmListenImport({ userId: lea.id, importId: waiting.id });
    await settleListenImports();
    expect(await stagedCount(waiting.id)).toBe(0);
    expect(await listensOf(lea.id)).toHaveLength(6);
    expect(await listensOf(max.id)).toHaveLength(9);
  });

  it("a play that reached the history after the preview is not added twice", async () => {
    const noa = await createTestUser();
    const plays = manyPlays(2_500);
    const preview = await createListenImport({
      userId: noa.id,
      files: [file("endsong_7.json", spotifyFile(plays))],
    });
    // The preview found every play new; then a player scrobbles one of them.
    expect(preview.summary?.skipped).toEqual([]);
    await getDb().execute(sql`
      insert into ${listens} (user_id, listened_at, duration_ms, artist_name, track_name,
        artist_key, track_key, source)
      select ${noa.id}, listened_at, duration_ms, artist_name, track_name, artist_key,
        track_key, 'scrobble'
      from ${listenImportRows} where import_id = ${preview.id} and seq = 1234`);
    await confirmListenImport({ userId: noa.id, importId: preview.id });
    await settleListenImports();
    const [done] = await listListenImports({ userId: noa.id });
    expect(done).toMatchObject({ status: "done", processed: 2_500, added: 2_499 });
    const history = await listensOf(noa.id);
    expect(history).toHaveLength(2_500);
    expect(history.filter((l) => l.importId === preview.id)).toHaveLength(2_499);
  });

  it("mails the person too when they want these by e-mail", async () => {
    const hal = await createTestUser();
    await getDb()
      .insert(notificationPreferences)
      .values({ userId: hal.id, kind: "listen_import", inApp: true, email: true });
    const preview = await createListenImport({
      userId: hal.id,
      files: [file("endsong_3.json", spotifyFile(manyPlays(4)))],
    });
    await confirmListenImport({ userId: hal.id, importId: preview.id });
    await settleListenImports();
    const mails = await getDb()
      .select({ subject: mailOutbox.subject, text: mailOutbox.text })
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, hal.email));
    expect(mails.map((m) => m.subject)).toEqual([
      "Your listening history import is done: 4 plays added",
    ]);
    expect(mails[0]?.text).toContain("/settings/listening");
  });

  it("nobody confirms, cancels or sees someone else's import", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const preview = await createListenImport({
      userId: owner.id,
      files: [file("endsong_2.json", spotifyFile(manyPlays(3)))],
    });
    await expectAppError(
      confirmListenImport({ userId: other.id, importId: preview.id }),
      "not_found",
      IMPORT_NOT_FOUND,
    );
    await expectAppError(
      cancelListenImport({ userId: other.id, importId: preview.id }),
      "not_found",
    );
    expect(await listListenImports({ userId: other.id })).toEqual([]);

    const response = (await listeningAction({
      request: new Request("http://localhost:3000/settings/listening", {
        method: "POST",
        body: new URLSearchParams({ intent: "confirm", importId: preview.id }),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      context: contextFor(other),
      params: {},
    } as unknown as Args<typeof listeningAction>)) as unknown as {
      data: { message: string };
      init: { status: number };
    };
    expect(response.init.status).toBe(404);
    expect(response.data.message).toBe(IMPORT_NOT_FOUND);
    const [still] = await listListenImports({ userId: owner.id });
    expect(still?.status).toBe("preview");
    expect(await listensOf(owner.id)).toEqual([]);
  });

  it("the settings page reads an uploaded multipart form as it streams, then imports on confirm", async () => {
    const fay = await createTestUser();
    const form = new FormData();
    form.set("intent", "upload");
    form.append(
      "files",
      new Blob([spotifyFile(manyPlays(40))], { type: "application/json" }),
      "Streaming_History_Audio_2021_0.json",
    );
    form.append(
      "files",
      new Blob(['"Low","Things We Lost in the Fire","Sunflower","22 May 2014, 20:11"\n'], {
        type: "text/csv",
      }),
      "scrobbles.csv",
    );
    const uploaded = (await listeningAction({
      request: new Request("http://localhost:3000/settings/listening", {
        method: "POST",
        body: form,
      }),
      context: contextFor(fay),
      params: {},
    } as unknown as Args<typeof listeningAction>)) as unknown as Response;
    expect(uploaded.status).toBe(302);
    const { imports } = (await listeningLoader({
      request: new Request("http://localhost:3000/settings/listening"),
      context: contextFor(fay),
      params: {},
    } as unknown as Args<typeof listeningLoader>)) as {
      imports: { id: string; summary: { plays: number; files: unknown[] } | null }[];
    };
    expect(imports[0]?.summary?.plays).toBe(41);
    expect(imports[0]?.summary?.files).toEqual([
      {
        name: "Streaming_History_Audio_2021_0.json",
        format: "Spotify extended streaming history",
        rows: 40,
      },
      { name: "scrobbles.csv", format: "Last.fm CSV", rows: 1 },
    ]);
    expect(await listensOf(fay.id)).toEqual([]);

    const confirmed = (await listeningAction({
      request: new Request("http://localhost:3000/settings/listening", {
        method: "POST",
        body: new URLSearchParams({ intent: "confirm", importId: imports[0]?.id ?? "" }),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      context: contextFor(fay),
      params: {},
    } as unknown as Args<typeof listeningAction>)) as unknown as Response;
    expect(confirmed.status).toBe(302);
    await settleListenImports();
    expect(await listensOf(fay.id)).toHaveLength(41);
    const [row] = rowsOf<{ status: string }>(
      await getDb().execute(
        sql`select status from ${listenImports} where ${and(eq(listenImports.userId, fay.id))}`,
      ),
    );
    expect(row?.status).toBe("done");
  });

  it("an upload with no file gets a clear message", async () => {
    const gus = await createTestUser();
    const form = new FormData();
    form.set("intent", "upload");
    const response = (await listeningAction({
      request: new Request("http://localhost:3000/settings/listening", {
        method: "POST",
        body: form,
      }),
      context: contextFor(gus),
      params: {},
    } as unknown as Args<typeof listeningAction>)) as unknown as {
      data: { message: string };
      init: { status: number };
    };
    expect(response.init.status).toBe(400);
    expect(response.data.message).toBe("Choose at least one file to import.");
  });
});
