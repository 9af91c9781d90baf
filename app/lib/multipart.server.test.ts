import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "~/core/errors";
import { readFormData, saveMultipartFiles } from "./multipart.server";

const BOUNDARY = "----soundtrail-test";

type Part =
  | { name: string; value: string }
  | { name: string; filename: string; content: string | Buffer; star?: string; type?: string };

/** A multipart body as a browser writes it; `cut` leaves off the closing boundary. */
function multipart(parts: Part[], cut = false): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if ("filename" in part) {
      disposition += `; filename="${part.filename}"`;
      if (part.star) disposition += `; filename*=UTF-8''${part.star}`;
    }
    const type = "filename" in part ? `\r\nContent-Type: ${part.type ?? "application/json"}` : "";
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(Buffer.from("filename" in part ? part.content : part.value));
    chunks.push(Buffer.from("\r\n"));
  }
  if (!cut) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** A request whose body arrives in small chunks and declares no length (as a chunked upload). */
function request(body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`) {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < body.length; at += 1000)
        controller.enqueue(body.subarray(at, at + 1000));
      controller.close();
    },
  });
  return new Request("http://localhost:3000/settings/listening", {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: stream,
    duplex: "half",
  } as RequestInit);
}

async function refusalOf(run: () => Promise<unknown>) {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const { code, message } = error as AppError;
  return { code, message };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "soundtrail-multipart-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const save = (req: Request, limits: { maxFiles?: number; maxBytes?: number } = {}) =>
  saveMultipartFiles(req, {
    dir,
    maxFiles: limits.maxFiles ?? 5,
    maxBytes: limits.maxBytes ?? 1024 * 1024,
    tooLargeMessage: "The files are too large.",
  });

describe("saveMultipartFiles", () => {
  it("writes each file to its own file on disk as it streams, keeping the fields", async () => {
    const big = Buffer.alloc(300_000, "x");
    const form = await save(
      request(
        multipart([
          { name: "intent", value: "upload" },
          { name: "files", filename: "a.json", content: '[{"ts":1}]' },
          { name: "files", filename: "big.csv", content: big, type: "text/csv" },
          // An empty file input: nothing was chosen (as browsers send it).
          { name: "files", filename: "", content: "", type: "application/octet-stream" },
        ]),
      ),
    );
    expect(Object.fromEntries(form.fields)).toEqual({ intent: "upload" });
    expect(form.files.map((f) => [f.field, f.name, f.size])).toEqual([
      ["files", "a.json", 10],
      ["files", "big.csv", 300_000],
    ]);
    expect(readFileSync(form.files[0]?.path ?? "", "utf8")).toBe('[{"ts":1}]');
    expect(readFileSync(form.files[1]?.path ?? "").equals(big)).toBe(true);
    // Stored under names of ours, never the browser's.
    expect(form.files.every((f) => path.dirname(f.path) === dir)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("reads file names in UTF-8, and the RFC 5987 name when there is one", async () => {
    const form = await save(
      request(
        multipart([
          { name: "files", filename: "Écouté.json", content: "[]" },
          { name: "files", filename: "plain.json", star: "%E9%9F%B3%E6%A5%BD.json", content: "[]" },
        ]),
      ),
    );
    expect(form.files.map((f) => f.name)).toEqual(["Écouté.json", "音楽.json"]);
  });

  it("refuses more files than allowed, and more bytes of files than allowed", async () => {
    const three = [1, 2, 3].map((n) => ({ name: "files", filename: `${n}.json`, content: "[]" }));
    expect(await refusalOf(() => save(request(multipart(three)), { maxFiles: 2 }))).toEqual({
      code: "invalid",
      message: "Choose at most 2 files at a time.",
    });
    const heavy = [1, 2].map((n) => ({
      name: "files",
      filename: `${n}.csv`,
      content: Buffer.alloc(6_000, "y"),
    }));
    expect(await refusalOf(() => save(request(multipart(heavy)), { maxBytes: 10_000 }))).toEqual({
      code: "too_large",
      message: "The files are too large.",
    });
  });

  it("refuses what is not a whole multipart form of ours as unreadable", async () => {
    const unreadable = {
      code: "invalid",
      message: "The form could not be read. Please try again.",
    };
    const oneFile = [{ name: "files", filename: "a.json", content: "[]" }];
    for (const req of [
      // cut off before the closing boundary
      request(multipart(oneFile, true)),
      // a text field far larger than any form of ours
      request(multipart([{ name: "note", value: "z".repeat(70 * 1024) }])),
      // no boundary, another type, garbage
      request(multipart(oneFile), "multipart/form-data"),
      request(multipart(oneFile), "application/json"),
      request(Buffer.from(`--${BOUNDARY}\r\nnot a part`)),
    ]) {
      expect(await refusalOf(() => save(req))).toEqual(unreadable);
    }
  });

  it("answers the server's body limit cutting the upload off as too large", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(multipart([{ name: "files", filename: "a.csv", content: "1,2" }], true));
        const cut = new Error("body over the limit");
        cut.name = "BodyTooLargeError";
        controller.error(cut);
      },
    });
    const req = new Request("http://localhost:3000/settings/listening", {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(await refusalOf(() => save(req))).toEqual({
      code: "too_large",
      message: "The files are too large.",
    });
  });
});

describe("readFormData", () => {
  it("reads url-encoded forms and multipart forms with an image", async () => {
    const encoded = await readFormData(
      new Request("http://localhost:3000/settings/profile", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "intent=profile&displayName=Ana%20R",
      }),
      1024,
    );
    expect(encoded.get("displayName")).toBe("Ana R");
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const form = await readFormData(
      request(
        multipart([
          { name: "title", value: "Heroes" },
          { name: "image", filename: "cover.png", content: image, type: "image/png" },
        ]),
      ),
      10_000,
    );
    expect(form.get("title")).toBe("Heroes");
    const file = form.get("image");
    expect(file).toBeInstanceOf(File);
    expect((file as File).type).toBe("image/png");
    expect(Buffer.from(await (file as File).arrayBuffer()).equals(image)).toBe(true);
  });

  it("refuses a body over the limit, declared or not, and one it cannot read", async () => {
    const tooLarge = {
      code: "too_large",
      message: "Images can be at most 10 MB. Choose a smaller one.",
    };
    const body = multipart([{ name: "image", filename: "a.png", content: Buffer.alloc(5_000) }]);
    expect(
      await refusalOf(() =>
        readFormData(
          new Request("http://localhost:3000/", {
            method: "POST",
            headers: {
              "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
              "Content-Length": "999999",
            },
            body: new Uint8Array(body),
          }),
          4_000,
        ),
      ),
    ).toEqual(tooLarge);
    expect(await refusalOf(() => readFormData(request(body), 4_000))).toEqual(tooLarge);
    expect(await refusalOf(() => readFormData(request(body, "text/plain"), 10_000))).toEqual({
      code: "invalid",
      message: "The form could not be read. Please try again.",
    });
  });
});
