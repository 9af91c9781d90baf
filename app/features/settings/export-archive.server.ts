import { type PassThrough, Readable } from "node:stream";
import { and, asc, desc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import { ZipFile } from "yazl";
import { AppError } from "~/core/errors";
import { type ActiveJob, defineJob, PermanentJobError } from "~/core/jobs/index.server";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { dataExportChunks, dataExports, media, user } from "~/db/schema";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { getEnv } from "~/lib/env.server";
import { EXPORT_KEEP_DAYS } from "./constants";
import { type ExportSection, exportSections, exportSummary, sectionText } from "./export.server";

export const EXPORT_NOT_FOUND = "This download is not available. Prepare a new one.";

const isUuid = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** Bytes per stored piece of an archive: the job and the download hold one at a time. */
export const CHUNK_BYTES = 1024 * 1024;

export interface DataExportView {
  id: string;
  status: "running" | "ready" | "failed";
  progress: number;
  byteSize: number | null;
  createdAt: string;
  expiresAt: string | null;
}

function toView(row: {
  id: string;
  status: "running" | "ready" | "failed";
  progress: number;
  byteSize: number | null;
  createdAt: Date;
  expiresAt: Date | null;
}): DataExportView {
  return {
    ...row,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

const viewColumns = {
  id: dataExports.id,
  status: dataExports.status,
  progress: dataExports.progress,
  byteSize: dataExports.byteSize,
  createdAt: dataExports.createdAt,
  expiresAt: dataExports.expiresAt,
};

/** The person's newest export (expired ones are deleted first), or null. */
export async function getLatestDataExport(options: {
  userId: string;
}): Promise<DataExportView | null> {
  const db = getDb();
  await db
    .delete(dataExports)
    .where(and(eq(dataExports.userId, options.userId), lt(dataExports.expiresAt, sql`now()`)));
  const [row] = await db
    .select(viewColumns)
    .from(dataExports)
    .where(eq(dataExports.userId, options.userId))
    .orderBy(desc(dataExports.createdAt))
    .limit(1);
  return row ? toView(row) : null;
}

/**
 * Starts preparing the person's archive (a job: it survives a restart, and any instance may
 * run it) and returns it at once (progress 0). While one is being prepared, that one is
 * returned instead of starting another. When it is ready the person gets an e-mail with the
 * download link (also shown in settings).
 */
export async function requestDataExport(options: { userId: string }): Promise<DataExportView> {
  const current = await getLatestDataExport(options);
  if (current?.status === "running") return current;
  const row = await getDb().transaction(async (tx) => {
    // Only the newest archive is kept: a new one replaces the old.
    await tx.delete(dataExports).where(eq(dataExports.userId, options.userId));
    const [created] = await tx
      .insert(dataExports)
      .values({ userId: options.userId })
      .returning(viewColumns);
    if (!created) throw new Error("data export insert returned nothing");
    await dataExportJob.enqueue(tx, { exportId: created.id }, { key: created.id });
    return created;
  });
  return toView(row);
}

const EXTENSIONS: Record<string, string> = {
  "image/webp": "webp",
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/avif": "avif",
};
const imageFile = (mediaId: string, type: string) =>
  `images/${mediaId}.${EXTENSIONS[type] ?? "bin"}`;

const README = (username: string, exportedAt: string) =>
  [
    `Everything ${username} created on Soundtrail, exported ${exportedAt}.`,
    "",
    "profile.json        your profile (and the file name of your picture)",
    "account.json        e-mail and phone",
    "posts.json          your posts; imageFile names the picture in images/",
    "comments.json       your comments (your own words only)",
    "likes.json          the posts you liked",
    "following.json      people you follow",
    "followers.json      people who follow you",
    "blocked.json        people you blocked",
    "notifications.json  your notifications",
    "settings.json       your notification preferences",
    "assistant-conversations.json  your conversations with the assistant",
    "listens.jsonl       your listening history: one play per line (JSON Lines), start times in UTC",
    "images/             the pictures you uploaded",
    "",
  ].join("\n");

const jsonFile = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);

/** A stream that reads a value only when the zip reaches its entry. */
function lazyStream(read: () => Promise<Uint8Array | null>): Readable {
  return Readable.from(
    (async function* () {
      const bytes = await read();
      if (bytes) yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    })(),
    { objectMode: false },
  );
}

/** The person's uploaded images, a page at a time (id and type only: bytes come one by one). */
async function* imagePages(userId: string): AsyncGenerator<{ id: string; contentType: string }[]> {
  let after: string | null = null;
  for (;;) {
    const rows: { id: string; contentType: string }[] = await getDb()
      .select({ id: media.id, contentType: media.contentType })
      .from(media)
      .where(and(eq(media.ownerId, userId), after ? gt(media.id, after) : undefined))
      .orderBy(asc(media.id))
      .limit(1000);
    if (rows.length > 0) yield rows;
    if (rows.length < 1000) return;
    after = rows.at(-1)?.id ?? null;
  }
}

const MEDIA_PATH = /\/media\/([0-9a-f-]{36})$/i;

/**
 * A section's text as a stream, counting its rows into `progress` as they are read; posts get
 * the file name of their picture in the archive.
 */
function sectionStream(
  section: ExportSection,
  userId: string,
  onRows: (rows: number) => void,
): Readable {
  const withImages: ExportSection =
    section.file === "posts.json"
      ? {
          ...section,
          async *pages() {
            for await (const page of section.pages()) {
              const ids = page
                .map((post) => MEDIA_PATH.exec(String(post.imageUrl ?? ""))?.[1])
                .filter((id): id is string => Boolean(id));
              const types = new Map(
                ids.length === 0
                  ? []
                  : (
                      await getDb()
                        .select({ id: media.id, contentType: media.contentType })
                        .from(media)
                        .where(and(eq(media.ownerId, userId), inArray(media.id, ids)))
                    ).map((m) => [m.id, m.contentType]),
              );
              yield page.map((post) => {
                const id = MEDIA_PATH.exec(String(post.imageUrl ?? ""))?.[1];
                const type = id ? types.get(id) : undefined;
                return { ...post, imageFile: id && type ? imageFile(id, type) : null };
              });
            }
          },
        }
      : section;
  return Readable.from(
    (async function* () {
      for await (const text of sectionText({
        ...withImages,
        async *pages() {
          for await (const page of withImages.pages()) {
            onRows(page.length);
            yield page;
          }
        },
      })) {
        yield Buffer.from(text);
      }
    })(),
    { objectMode: false },
  );
}

/**
 * Builds the archive with a streaming zip writer: the JSON files of `exportSummary`, each
 * growing section read page by page (plays as JSON Lines), then every uploaded image read one
 * at a time — and stores it as it streams out, a megabyte per row, each write fenced by the
 * job's lease. Memory stays flat for any history; a crash restarts it from the beginning (its
 * pieces written so far are deleted first).
 */
async function prepareDataExport(job: ActiveJob<{ exportId: string }>): Promise<void> {
  const { exportId } = job.payload;
  const db = getDb();
  const [target] = await db
    .select({ userId: dataExports.userId, status: dataExports.status })
    .from(dataExports)
    .where(eq(dataExports.id, exportId));
  // Replaced by a newer one, or the person is gone: nothing to do.
  if (target?.status !== "running") return;
  const { userId } = target;
  await db.transaction(async (tx) => {
    await job.fence(tx);
    await tx.delete(dataExportChunks).where(eq(dataExportChunks.exportId, exportId));
    await tx
      .update(dataExports)
      .set({ progress: 0, updatedAt: sql`now()` })
      .where(eq(dataExports.id, exportId));
  });

  const summary = await exportSummary({ userId });
  const sections = exportSections({ userId });
  let totalRows = 1;
  for (const section of sections) totalRows += await section.count();
  let doneRows = 0;
  let shownProgress = 0;
  const at = new Date();

  const zip = new ZipFile();
  // A read that fails (the database went away) ends the archive's stream with its error.
  zip.on("error", (error: Error) => (zip.outputStream as PassThrough).destroy(error));
  const add = (name: string, bytes: Buffer) => zip.addBuffer(bytes, name, { mtime: at });
  add("README.txt", Buffer.from(README(summary.profile.username, summary.exportedAt)));
  // The profile names its picture's file in the archive (found among the images below).
  const avatarId = summary.profile.avatarUrl?.match(MEDIA_PATH)?.[1] ?? null;
  const [avatar] = avatarId
    ? await db
        .select({ contentType: media.contentType })
        .from(media)
        .where(and(eq(media.id, avatarId), eq(media.ownerId, userId)))
    : [];
  add(
    "profile.json",
    jsonFile({
      ...summary.profile,
      avatarFile: avatarId && avatar ? imageFile(avatarId, avatar.contentType) : null,
      format: summary.format,
      exportedAt: summary.exportedAt,
    }),
  );
  add("account.json", jsonFile(summary.account));
  add("following.json", jsonFile(summary.following));
  add("followers.json", jsonFile(summary.followers));
  add("blocked.json", jsonFile(summary.blocked));
  add("settings.json", jsonFile(summary.notificationPreferences));
  add("assistant-conversations.json", jsonFile(summary.assistantConversations));
  for (const section of sections) {
    zip.addReadStream(
      sectionStream(section, userId, (rows) => {
        doneRows += rows;
      }),
      section.file,
      { mtime: at, compress: true },
    );
  }
  // Images are added as their list is read; each one's bytes are read when the zip reaches it.
  const addImages = (async () => {
    try {
      await addImageEntries();
    } catch (error) {
      (zip.outputStream as PassThrough).destroy(error as Error);
      throw error;
    }
    zip.end();
  })();
  async function addImageEntries() {
    for await (const page of imagePages(userId)) {
      for (const image of page) {
        zip.addReadStream(
          lazyStream(async () => {
            const [row] = await db
              .select({ bytes: media.bytes })
              .from(media)
              .where(and(eq(media.id, image.id), eq(media.ownerId, userId)));
            return row?.bytes ?? null;
          }),
          imageFile(image.id, image.contentType),
          // Already compressed (WebP, JPEG …): stored as they are.
          { mtime: at, compress: false },
        );
      }
    }
  }

  let seq = 0;
  let byteSize = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const bytes = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const progress = Math.min(99, Math.floor((100 * doneRows) / totalRows));
    await db.transaction(async (tx) => {
      await job.fence(tx);
      await tx.insert(dataExportChunks).values({ exportId, seq: seq++, bytes });
      if (progress > shownProgress) {
        shownProgress = progress;
        await tx
          .update(dataExports)
          .set({ progress, updatedAt: sql`now()` })
          .where(eq(dataExports.id, exportId));
      }
    });
    logger.debug({ exportId, piece: seq - 1, bytes: bytes.length }, "data export piece");
    await job.yield();
  };
  try {
    for await (const piece of zip.outputStream as AsyncIterable<Buffer>) {
      if (job.signal.aborted) throw new Error("the export job was stopped");
      pending.push(piece);
      pendingBytes += piece.length;
      byteSize += piece.length;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    await flush();
  } finally {
    // Ends the image reader whatever happened above (its error, if any, is the one thrown).
    await addImages;
  }
  const expiresAt = new Date(Date.now() + EXPORT_KEEP_DAYS * 24 * 60 * 60 * 1000);
  const isReady = await db.transaction(async (tx) => {
    await job.fence(tx);
    const updated = await tx
      .update(dataExports)
      .set({ status: "ready", progress: 100, byteSize, updatedAt: sql`now()`, expiresAt })
      .where(and(eq(dataExports.id, exportId), eq(dataExports.status, "running")))
      .returning({ id: dataExports.id });
    return updated.length > 0;
  });
  if (!isReady) return;
  logger.info({ exportId, byteSize }, "data export ready");
  await mailDownloadLink({ id: exportId, userId, expiresAt });
}

/** Prepares a person's "download everything" archive (see prepareDataExport). */
export const dataExportJob = defineJob<{ exportId: string }>({
  kind: "settings.data-export",
  priority: 8,
  concurrency: 1,
  maxAttempts: 3,
  parse(payload) {
    const exportId = (payload as { exportId?: unknown }).exportId;
    if (typeof exportId !== "string" || !isUuid(exportId)) {
      throw new PermanentJobError("not an export id");
    }
    return { exportId };
  },
  async run(job) {
    await prepareDataExport(job);
    return undefined;
  },
  async onDead({ exportId }) {
    await getDb()
      .update(dataExports)
      .set({ status: "failed", updatedAt: sql`now()` })
      .where(and(eq(dataExports.id, exportId), eq(dataExports.status, "running")));
    await getDb().delete(dataExportChunks).where(eq(dataExportChunks.exportId, exportId));
  },
});

async function mailDownloadLink(options: {
  id: string;
  userId: string;
  expiresAt: Date;
}): Promise<void> {
  const [person] = await getDb()
    .select({ email: user.email, emailVerified: user.emailVerified })
    .from(user)
    .where(eq(user.id, options.userId));
  if (!person?.email || !person.emailVerified || person.email.endsWith(".invalid")) return;
  const url = new URL(`/settings/data/export/${options.id}`, getEnv().BASE_URL).toString();
  const day = options.expiresAt.toISOString().slice(0, 10);
  const { html, text } = renderEmail({
    title: "Your Soundtrail data is ready",
    paragraphs: [
      "The archive of everything you created on Soundtrail is ready: your profile, posts, comments, likes, follows, notifications, settings and listening history, with your pictures.",
      `The link works while you are signed in, until ${day}.`,
    ],
    action: { label: "Download your data", url },
    footer: "You get this because you asked for a copy of your data in settings.",
  });
  await sendMail({
    to: person.email,
    subject: "Your Soundtrail data is ready",
    html,
    text,
    idempotencyKey: `data-export:${options.id}`,
  });
}

export interface DataExportFile {
  byteSize: number;
  createdAt: Date;
  /** The archive, read from the database a piece at a time as the client takes it. */
  body: ReadableStream<Uint8Array>;
}

/** The archive for its owner while it is ready and not expired; anyone else: not found. */
export async function getDataExportFile(options: {
  userId: string;
  id: string;
}): Promise<DataExportFile> {
  if (!isUuid(options.id)) throw new AppError("not_found", EXPORT_NOT_FOUND);
  const [row] = await getDb()
    .select({ byteSize: dataExports.byteSize, createdAt: dataExports.createdAt })
    .from(dataExports)
    .where(
      and(
        eq(dataExports.id, options.id),
        eq(dataExports.userId, options.userId),
        eq(dataExports.status, "ready"),
        sql`${dataExports.expiresAt} > now()`,
      ),
    );
  if (!row || row.byteSize === null) throw new AppError("not_found", EXPORT_NOT_FOUND);
  let seq = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const [chunk] = await getDb()
          .select({ bytes: dataExportChunks.bytes })
          .from(dataExportChunks)
          .where(and(eq(dataExportChunks.exportId, options.id), eq(dataExportChunks.seq, seq)));
        seq++;
        if (chunk) controller.enqueue(chunk.bytes);
        else controller.close();
      },
    },
    // One piece at a time: the next is read once the client has taken this one.
    { highWaterMark: 0 },
  );
  return { byteSize: row.byteSize, createdAt: row.createdAt, body };
}
