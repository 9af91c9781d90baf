import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import busboy, { type FileInfo, type Limits } from "busboy";
import { AppError } from "~/core/errors";

// Forms are read by busboy (ADR 026): a maintained streaming parser, so boundaries, quoting,
// `filename*` and malformed bodies are its business. What is ours is the limits and what each
// refusal says, the same for every form.

/** Longest text field of any form (bytes); a longer one is not a form of ours. */
const FIELD_MAX_BYTES = 64 * 1024;

const unreadable = () => new AppError("invalid", "The form could not be read. Please try again.");

/** What a request's body stream failed with, as a refusal (the server's body limit, or else unreadable). */
function refusalFor(error: unknown, tooLarge: () => AppError): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Error && error.name === "BodyTooLargeError") return tooLarge();
  return unreadable();
}

interface PartHandlers {
  limits: Limits;
  /** The most bytes the whole body may have (the parse fails with `tooLarge()` past it). */
  maxBodyBytes?: number;
  tooLarge: () => AppError;
  onField(name: string, value: string): void;
  /** Must consume `stream` (or throw): the parse ends when every file is read. */
  onFile(name: string, stream: Readable, info: FileInfo): Promise<void>;
}

/**
 * Streams a url-encoded or multipart body through busboy, handing each field and file to the
 * handlers as it arrives. Rejects with an AppError — the handlers' own, `tooLarge()` when the
 * server's body limit cut the body off, or "could not be read" for anything malformed (a field
 * over FIELD_MAX_BYTES included) — after the body is let go.
 */
function parseForm(request: Request, handlers: PartHandlers): Promise<void> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: Object.fromEntries(request.headers),
      // Browsers send file names as raw UTF-8 (RFC 7578), not latin1.
      defParamCharset: "utf8",
      limits: { fieldNameSize: 200, fieldSize: FIELD_MAX_BYTES, ...handlers.limits },
    });
  } catch {
    // No or an unknown Content-Type, or a multipart one without a boundary.
    return Promise.reject(unreadable());
  }
  if (!request.body) return Promise.reject(unreadable());
  const body = Readable.fromWeb(request.body as NodeWebStream<Uint8Array>);
  const source =
    handlers.maxBodyBytes === undefined
      ? body
      : body.pipe(metered(limitedTo(handlers.maxBodyBytes, handlers.tooLarge)));
  body.on("error", (error) => source.destroy(error));
  return new Promise<void>((resolve, reject) => {
    const files: Promise<void>[] = [];
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      body.destroy();
      source.destroy();
      parser.removeAllListeners("close");
      reject(refusalFor(error, handlers.tooLarge));
    };
    parser.on("field", (name, value, info) => {
      if (failed) return;
      if (info.valueTruncated || info.nameTruncated) return fail(unreadable());
      try {
        handlers.onField(name, value);
      } catch (error) {
        fail(error);
      }
    });
    parser.on("file", (name, stream, info) => {
      if (failed) {
        stream.resume();
        return;
      }
      files.push(handlers.onFile(name, stream, info).catch(fail));
    });
    parser.on("error", fail);
    parser.on("close", () => {
      void Promise.all(files).then(() => {
        if (!failed) resolve();
      });
    });
    source.on("error", fail);
    source.pipe(parser);
  });
}

/** Passes bytes through, telling `onBytes` how many came; what it throws fails the stream. */
function metered(onBytes: (count: number) => void) {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        onBytes(chunk.length);
        callback(null, chunk);
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

/** A byte counter that throws `tooLarge()` once more than `limit` bytes were counted. */
function limitedTo(limit: number, tooLarge: () => AppError) {
  let total = 0;
  return (count: number) => {
    total += count;
    if (total > limit) throw tooLarge();
  };
}

/**
 * Reads a small form (url-encoded, or multipart with an image), refusing bodies over
 * `maxBytes` while they stream in: a missing or false Content-Length cannot get past the
 * limit. Files are kept in memory, which `maxBytes` bounds.
 */
export async function readFormData(request: Request, maxBytes: number): Promise<FormData> {
  const tooLarge = () =>
    new AppError("too_large", "Images can be at most 10 MB. Choose a smaller one.");
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  const form = new FormData();
  await parseForm(request, {
    limits: {},
    maxBodyBytes: maxBytes,
    tooLarge,
    onField: (name, value) => form.append(name, value),
    async onFile(name, stream, info) {
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      for await (const chunk of stream) chunks.push(new Uint8Array(chunk as Buffer));
      form.append(name, new File(chunks, info.filename ?? "", { type: info.mimeType }));
    },
  });
  return form;
}

/** A file part of a multipart form, saved to disk as it streamed in. */
export interface SavedFile {
  field: string;
  /** The file's name as the browser sent it (never used as a path). */
  name: string;
  /** Where it is on disk, inside the directory the caller gave. */
  path: string;
  size: number;
}

export interface SavedForm {
  fields: Map<string, string>;
  files: SavedFile[];
}

/**
 * Reads a multipart/form-data body as it streams in, writing each file part straight to a new
 * file in `dir` (never holding a file in memory) and keeping the small text fields. Refuses
 * more than `maxFiles` files and `maxBytes` of files in all, and anything malformed, with an
 * AppError whose message can be shown as is. An empty file input (nothing chosen) is no file.
 */
export async function saveMultipartFiles(
  request: Request,
  options: { dir: string; maxFiles: number; maxBytes: number; tooLargeMessage: string },
): Promise<SavedForm> {
  if (!/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
    throw unreadable();
  }
  const tooLarge = () => new AppError("too_large", options.tooLargeMessage);
  const fields = new Map<string, string>();
  const files: SavedFile[] = [];
  const countFileBytes = limitedTo(options.maxBytes, tooLarge);
  await parseForm(request, {
    limits: {},
    tooLarge,
    onField: (name, value) => {
      fields.set(name, value);
    },
    async onFile(field, stream, info) {
      if (!info.filename) {
        stream.resume();
        return;
      }
      if (files.length >= options.maxFiles) {
        stream.resume();
        throw new AppError("invalid", `Choose at most ${options.maxFiles} files at a time.`);
      }
      const saved: SavedFile = {
        field,
        name: info.filename.slice(0, 255),
        path: path.join(options.dir, randomUUID()),
        size: 0,
      };
      files.push(saved);
      await pipeline(
        stream,
        metered((count) => {
          countFileBytes(count);
          saved.size += count;
        }),
        createWriteStream(saved.path, { flags: "wx", mode: 0o600 }),
      );
    },
  });
  return { fields, files };
}
