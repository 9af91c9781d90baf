import { randomUUID } from "node:crypto";
import { open } from "node:fs/promises";
import path from "node:path";
import { AppError } from "~/core/errors";

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

const HEADER_MAX_BYTES = 16 * 1024;
const FIELD_MAX_BYTES = 64 * 1024;

function boundaryOf(contentType: string | null): string | null {
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? "");
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function dispositionOf(headers: string): { name: string; filename: string | null } | null {
  const line = headers.split("\r\n").find((h) => /^content-disposition:/i.test(h));
  if (!line) return null;
  const name = /;\s*name="([^"]*)"/i.exec(line)?.[1] ?? /;\s*name=([^;\s]+)/i.exec(line)?.[1];
  if (name === undefined) return null;
  const star = /;\s*filename\*=(?:UTF-8|utf-8)''([^;\s]+)/.exec(line)?.[1];
  let filename: string | null = /;\s*filename="([^"]*)"/i.exec(line)?.[1] ?? null;
  if (star) {
    try {
      filename = decodeURIComponent(star);
    } catch {
      // Keep the plain filename.
    }
  }
  return { name, filename };
}

/**
 * Reads a multipart/form-data body as it streams in, writing each file part straight to a new
 * file in `dir` (never holding a file in memory) and keeping the small text fields. Refuses
 * more than `maxFiles` files and `maxBytes` of files in all, and anything malformed, with an
 * AppError whose message can be shown as is.
 */
export async function saveMultipartFiles(
  request: Request,
  options: { dir: string; maxFiles: number; maxBytes: number; tooLargeMessage: string },
): Promise<SavedForm> {
  const boundary = boundaryOf(request.headers.get("Content-Type"));
  if (!boundary || !request.body) {
    throw new AppError("invalid", "The form could not be read. Please try again.");
  }
  const malformed = () => new AppError("invalid", "The form could not be read. Please try again.");
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const fields = new Map<string, string>();
  const files: SavedFile[] = [];
  let total = 0;

  type Phase = "preamble" | "afterBoundary" | "headers" | "body" | "done";
  let phase = "preamble" as Phase;
  let buffer = Buffer.alloc(0);
  let file: { handle: Awaited<ReturnType<typeof open>>; saved: SavedFile } | null = null;
  let field: { name: string; chunks: Buffer[]; size: number } | null = null;
  let skipping = false;

  const emit = async (bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (file) {
      total += bytes.length;
      if (total > options.maxBytes) throw new AppError("too_large", options.tooLargeMessage);
      file.saved.size += bytes.length;
      await file.handle.write(bytes);
    } else if (field) {
      field.size += bytes.length;
      if (field.size > FIELD_MAX_BYTES) throw malformed();
      field.chunks.push(bytes);
    }
  };
  const endPart = async () => {
    if (file) {
      await file.handle.close();
      if (file.saved.size > 0 || file.saved.name) files.push(file.saved);
      file = null;
    }
    if (field) {
      fields.set(field.name, Buffer.concat(field.chunks).toString("utf8"));
      field = null;
    }
    skipping = false;
  };
  const startPart = async (headers: string) => {
    const disposition = dispositionOf(headers);
    if (!disposition) throw malformed();
    if (disposition.filename === null) {
      field = { name: disposition.name, chunks: [], size: 0 };
      return;
    }
    if (disposition.filename === "") {
      // An empty file input: nothing chosen.
      skipping = true;
      return;
    }
    if (files.length >= options.maxFiles) {
      throw new AppError("invalid", `Choose at most ${options.maxFiles} files at a time.`);
    }
    const saved: SavedFile = {
      field: disposition.name,
      name: disposition.filename.slice(0, 255),
      path: path.join(options.dir, randomUUID()),
      size: 0,
    };
    file = { handle: await open(saved.path, "wx", 0o600), saved };
  };

  // Returns false when more bytes are needed.
  const step = async (): Promise<boolean> => {
    switch (phase) {
      case "preamble": {
        const at = buffer.indexOf(opening);
        if (at < 0) {
          if (buffer.length > HEADER_MAX_BYTES) throw malformed();
          return false;
        }
        buffer = buffer.subarray(at + opening.length);
        phase = "afterBoundary";
        return true;
      }
      case "afterBoundary": {
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          phase = "done";
          return false;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) {
          if (buffer.length > 256) throw malformed();
          return false;
        }
        buffer = buffer.subarray(eol + 2);
        phase = "headers";
        return true;
      }
      case "headers": {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) {
          if (buffer.length > HEADER_MAX_BYTES) throw malformed();
          return false;
        }
        await startPart(buffer.subarray(0, end).toString("utf8"));
        buffer = buffer.subarray(end + 4);
        phase = "body";
        return true;
      }
      case "body": {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          const keep = delimiter.length - 1;
          if (buffer.length > keep) {
            const out = buffer.subarray(0, buffer.length - keep);
            if (!skipping) await emit(Buffer.from(out));
            buffer = buffer.subarray(buffer.length - keep);
          }
          return false;
        }
        if (!skipping) await emit(Buffer.from(buffer.subarray(0, at)));
        await endPart();
        buffer = buffer.subarray(at + delimiter.length);
        phase = "afterBoundary";
        return true;
      }
      default:
        return false;
    }
  };

  const reader = request.body.getReader();
  try {
    while (phase !== "done") {
      const { done, value } = await reader.read();
      if (done) break;
      buffer = buffer.length === 0 ? Buffer.from(value) : Buffer.concat([buffer, value]);
      while (await step()) {
        // Keep stepping while a step used bytes.
      }
    }
    if (phase !== "done") throw malformed();
  } catch (error) {
    await reader.cancel().catch(() => {});
    const pending = file as { handle: { close(): Promise<void> } } | null;
    await pending?.handle.close().catch(() => {});
    if (error instanceof AppError) throw error;
    if (error instanceof Error && error.name === "BodyTooLargeError") {
      throw new AppError("too_large", options.tooLargeMessage);
    }
    throw malformed();
  } finally {
    reader.releaseLock();
  }
  return { fields, files };
}
