import { inflateRawSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { isAppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { dataExports, mailOutbox } from "~/db/schema";
import { processImage } from "~/features/media/index.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { loader as archiveLoader } from "~/routes/_app/settings-data-archive";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  EXPORT_NOT_FOUND,
  getDataExportFile,
  getLatestDataExport,
  requestDataExport,
  settleDataExports,
} from "./export-archive.server";
import { setAvatar } from "./profile.server";
import { createZip } from "./zip.server";

withTestDatabase();

/** The files of a zip, read back through its central directory (what unzip tools do). */
function readZip(bytes: Uint8Array): Map<string, Buffer> {
  const zip = Buffer.from(bytes);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThan(-1);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const localNameLength = zip.readUInt16LE(local + 26);
    const start = local + 30 + localNameLength + zip.readUInt16LE(local + 28);
    const body = zip.subarray(start, start + size);
    files.set(name, method === 8 ? inflateRawSync(body) : Buffer.from(body));
    at += 46 + nameLength;
  }
  return files;
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

describe("zip archive", () => {
  it("round-trips names (UTF-8), text and binary content", () => {
    const files = readZip(
      createZip([
        { name: "hello.json", data: new TextEncoder().encode('{"a":"Björk"}'), compress: true },
        { name: "images/x.bin", data: new Uint8Array([0, 1, 2, 255]), compress: false },
        { name: "ünïcode.txt", data: new Uint8Array(), compress: true },
      ]),
    );
    expect([...files.keys()]).toEqual(["hello.json", "images/x.bin", "ünïcode.txt"]);
    expect(files.get("hello.json")?.toString("utf8")).toBe('{"a":"Björk"}');
    expect([...(files.get("images/x.bin") ?? [])]).toEqual([0, 1, 2, 255]);
  });
});

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

    const { bytes } = await getDataExportFile({ userId: nia.id, id: started.id });
    const files = readZip(bytes);
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
    for (const name of ["account.json", "comments.json", "likes.json", "settings.json"]) {
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
    expect(readZip(new Uint8Array(await response.arrayBuffer())).has("posts.json")).toBe(true);
    for (const id of [started.id, "not-a-uuid", "00000000-0000-4000-8000-000000000000"]) {
      const refused = await archiveLoader({
        request: new Request(`http://localhost:3000/settings/data/export/${id}`),
        context: contextFor(oli),
        params: { id },
      } as unknown as Parameters<typeof archiveLoader>[0]).then(
        () => null,
        (e: unknown) => e,
      );
      expect((refused as { init?: { status: number } })?.init?.status).toBe(404);
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
