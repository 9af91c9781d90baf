import { promisify } from "node:util";
import { eq, sql } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { isAppError } from "~/core/errors";
import { drainJobs } from "~/core/jobs/index.server";
import { getDb } from "~/db/client.server";
import { dataExportChunks, dataExports, listens, mailOutbox } from "~/db/schema";
import { processImage } from "~/features/media/index.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as settingsDataArchiveRoute from "~/routes/_app/settings-data-archive";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  dataExportJob,
  EXPORT_NOT_FOUND,
  getDataExportFile,
  getLatestDataExport,
  requestDataExport,
} from "./export-archive.server";
import { setAvatar } from "./profile.server";

const settleDataExports = () => drainJobs([dataExportJob]);

const { loader: archiveLoader } = atTheEdge(settingsDataArchiveRoute);

withTestDatabase();

/** The files of a zip, read back with yauzl (what the importers use to read uploaded zips). */
async function readZip(bytes: Uint8Array): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true }, (error, opened) =>
      error || !opened ? reject(error) : resolve(opened),
    ),
  );
  const files = new Map<string, Buffer>();
  for (;;) {
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      zip.once("entry", resolve);
      zip.once("end", () => resolve(null));
      zip.once("error", reject);
      zip.readEntry();
    });
    if (!entry) return files;
    zip.removeAllListeners();
    const stream = await promisify(zip.openReadStream.bind(zip))(entry);
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    files.set(entry.fileName, Buffer.concat(parts));
  }
}

async function download(userId: string, id: string): Promise<Uint8Array> {
  const file = await getDataExportFile({ userId, id });
  const bytes = new Uint8Array(await new Response(file.body).arrayBuffer());
  expect(bytes.byteLength).toBe(file.byteSize);
  return bytes;
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

async function picture(): Promise<Uint8Array> {
  const buffer = await sharp({
    create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } },
  })
    .png()
    .toBuffer();
  return new Uint8Array(buffer);
}

describe("data export archive", () => {
  it("is prepared in the background, holds exactly the person's things and pictures, and is mailed", async () => {
    const nia = await createTestUser();
    const oli = await createTestUser();
    const image = await processImage(await picture());
    const withImage = await createTestPost(nia.id, { title: "Nia with picture" }, image);
    const own = await createTestPost(nia.id, { title: "Nia private", audience: "only_me" });
    await createTestPost(oli.id, { title: "Oli secret", note: "secret note", audience: "only_me" });
    await createTestPost(oli.id, { title: "Oli public" }, await processImage(await picture()));
    const avatar = await setAvatar({ userId: nia.id, file: await picture() });

    const started = await requestDataExport({ userId: nia.id });
    expect(started).toMatchObject({ status: "running", progress: 0 });
    // Asking again while it runs gives the same one.
    expect((await requestDataExport({ userId: nia.id })).id).toBe(started.id);
    await settleDataExports();
    const done = await getLatestDataExport({ userId: nia.id });
    expect(done).toMatchObject({ id: started.id, status: "ready", progress: 100 });
    expect(done?.byteSize).toBeGreaterThan(0);

    const files = await readZip(await download(nia.id, started.id));
    const posts = JSON.parse(files.get("posts.json")?.toString("utf8") ?? "[]") as {
      id: string;
      title: string;
      imageFile: string | null;
    }[];
    expect(posts.map((p) => p.title).sort()).toEqual(["Nia private", "Nia with picture"]);
    expect(posts.map((p) => p.id).sort()).toEqual([own, withImage].sort());
    const imageFile = posts.find((p) => p.id === withImage)?.imageFile ?? "";
    expect(imageFile).toMatch(/^images\/[0-9a-f-]{36}\.webp$/);
    expect((await sharp(files.get(imageFile)).metadata()).format).toBe("webp");
    const profile = JSON.parse(files.get("profile.json")?.toString("utf8") ?? "{}") as {
      username: string;
      avatarFile: string;
    };
    expect(profile.username).toBe(nia.username);
    expect(profile.avatarFile).toBe(`images/${avatar.replace("/media/", "")}.webp`);
    // Her two pictures, nothing of Oli's.
    expect([...files.keys()].filter((n) => n.startsWith("images/"))).toHaveLength(2);
    const everything = [...files.values()].map((b) => b.toString("latin1")).join("\n");
    expect(everything).not.toContain("Oli secret");
    expect(everything).not.toContain("secret note");
    for (const name of [
      "account.json",
      "comments.json",
      "likes.json",
      "settings.json",
      "listens.jsonl",
    ]) {
      expect(files.has(name)).toBe(true);
    }

    const mails = await getDb()
      .select({ to: mailOutbox.toAddress, text: mailOutbox.text })
      .from(mailOutbox)
      .where(eq(mailOutbox.subject, "Your Soundtrail data is ready"));
    expect(mails).toHaveLength(1);
    expect(mails[0]?.to).toBe(nia.email);
    expect(mails[0]?.text).toContain(`/settings/data/export/${started.id}`);

    // The route serves it to its owner as a zip; anyone else gets a 404, never a 500.
    const response = (await archiveLoader({
      request: new Request(`http://localhost:3000/settings/data/export/${started.id}`),
      context: contextFor(nia),
      params: { id: started.id },
    } as unknown as Parameters<typeof archiveLoader>[0])) as Response;
    expect(response.headers.get("Content-Type")).toBe("application/zip");
    expect((await readZip(new Uint8Array(await response.arrayBuffer()))).has("posts.json")).toBe(
      true,
    );
    for (const id of [started.id, "not-a-uuid", "00000000-0000-4000-8000-000000000000"]) {
      const refused = await archiveLoader({
        request: new Request(`http://localhost:3000/settings/data/export/${id}`),
        context: contextFor(oli),
        params: { id },
      } as unknown as Parameters<typeof archiveLoader>[0]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(Response);
      expect((refused as Response).status).toBe(404);
      expect(await (refused as Response).json()).toMatchObject({
        ok: false,
        message: "This download is not available. Prepare a new one.",
      });
    }

    // Expired: gone, and the link stops working.
    await getDb()
      .update(dataExports)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(dataExports.id, started.id));
    const expired = await getDataExportFile({ userId: nia.id, id: started.id }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(expired) && expired.message).toBe(EXPORT_NOT_FOUND);
    expect(await getLatestDataExport({ userId: nia.id })).toBeNull();
  });
});

describe("data export of a heavy listener", () => {
  it("streams every play into listens.jsonl in order, and a retried job starts over cleanly", async () => {
    const ana = await createTestUser();
    const plays = 5_003;
    await getDb().execute(sql`
      insert into ${listens} (user_id, listened_at, duration_ms, artist_name, track_name,
        release_name, artist_key, track_key, release_key, source)
      select ${ana.id}, timestamptz '2024-01-01' + make_interval(mins => i), 180000,
        'Artist ' || (i % 37), 'Track ' || i, null, 'artist ' || (i % 37), 'track ' || i, '',
        'import'
      from generate_series(1, ${plays}) i`);
    const started = await requestDataExport({ userId: ana.id });
    // What a run cut off by a crash left behind: pieces of an archive that never finished.
    await getDb()
      .insert(dataExportChunks)
      .values([
        { exportId: started.id, seq: 0, bytes: new Uint8Array([1, 2, 3]) },
        { exportId: started.id, seq: 1, bytes: new Uint8Array([4, 5, 6]) },
      ]);
    await settleDataExports();
    expect(await getLatestDataExport({ userId: ana.id })).toMatchObject({ status: "ready" });
    const files = await readZip(await download(ana.id, started.id));
    const lines = (files.get("listens.jsonl")?.toString("utf8") ?? "").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(plays);
    const parsed = lines.map(
      (line) => JSON.parse(line) as { listenedAt: string; trackName: string },
    );
    expect(parsed[0]).toMatchObject({
      trackName: "Track 1",
      listenedAt: "2024-01-01T00:01:00.000Z",
    });
    expect(parsed.at(-1)?.trackName).toBe(`Track ${plays}`);
    const times = parsed.map((p) => p.listenedAt);
    expect([...times].sort()).toEqual(times);
  });

  it("tells the person when preparing failed for good", async () => {
    const ben = await createTestUser();
    const started = await requestDataExport({ userId: ben.id });
    await getDb().execute(sql`update jobs set max_attempts = 1, payload = '{"exportId":"x"}'
      where kind = ${dataExportJob.kind} and key = ${started.id}`);
    await settleDataExports();
    // A payload the job cannot read is dead at once; nothing else is touched.
    const [job] = await getDb()
      .execute(sql`select status from jobs where key = ${started.id}`)
      .then((r) => (r as unknown as { rows: { status: string }[] }).rows);
    expect(job?.status).toBe("dead");
    await dataExportJob.onDead?.({ exportId: started.id }, "broken");
    expect(await getLatestDataExport({ userId: ben.id })).toMatchObject({ status: "failed" });
  });
});
