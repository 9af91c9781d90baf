import { and, asc, desc, eq, lt, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { logger } from "~/core/logger.server";
import { getDb } from "~/db/client.server";
import { dataExports, media, user } from "~/db/schema";
import { renderEmail } from "~/features/mail";
import { sendMail } from "~/features/mail/index.server";
import { getEnv } from "~/lib/env.server";
import { EXPORT_KEEP_DAYS } from "./constants";
import { exportPersonData } from "./export.server";
import { createZip, type ZipEntry } from "./zip.server";

/** A "running" export not touched for this long was cut off (its instance stopped). */
const STALLED_MS = 5 * 60 * 1000;
export const EXPORT_NOT_FOUND = "This download is not available. Prepare a new one.";

export interface DataExportView {
  id: string;
  status: "running" | "ready" | "failed";
  progress: number;
  byteSize: number | null;
  createdAt: string;
  expiresAt: string | null;
}

const inBackground = new Set<Promise<unknown>>();

/** Waits for the exports this process is preparing (tests, and shutdown). */
export async function settleDataExports(): Promise<void> {
  while (inBackground.size > 0) await Promise.allSettled([...inBackground]);
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
  await db
    .update(dataExports)
    .set({ status: "failed" })
    .where(
      and(
        eq(dataExports.userId, options.userId),
        eq(dataExports.status, "running"),
        lt(dataExports.updatedAt, new Date(Date.now() - STALLED_MS)),
      ),
    );
  const [row] = await db
    .select(viewColumns)
    .from(dataExports)
    .where(eq(dataExports.userId, options.userId))
    .orderBy(desc(dataExports.createdAt))
    .limit(1);
  return row ? toView(row) : null;
}

/**
 * Starts preparing the person's archive in the background and returns it at once (progress 0).
 * While one is being prepared, that one is returned instead of starting another. When it is
 * ready the person gets an e-mail with the download link (also shown in settings).
 */
export async function requestDataExport(options: { userId: string }): Promise<DataExportView> {
  const current = await getLatestDataExport(options);
  if (current?.status === "running") return current;
  const db = getDb();
  // Only the newest archive is kept: a new one replaces the old.
  await db.delete(dataExports).where(eq(dataExports.userId, options.userId));
  const [row] = await db
    .insert(dataExports)
    .values({ userId: options.userId })
    .returning(viewColumns);
  if (!row) throw new Error("data export insert returned nothing");
  const job: Promise<unknown> = prepareDataExport({ id: row.id, userId: options.userId })
    .catch(async (error: unknown) => {
      logger.error({ err: error, exportId: row.id }, "data export failed");
      await getDb()
        .update(dataExports)
        .set({ status: "failed", updatedAt: sql`now()` })
        .where(eq(dataExports.id, row.id))
        .catch(() => {});
    })
    .finally(() => inBackground.delete(job));
  inBackground.add(job);
  return toView(row);
}

async function setProgress(id: string, progress: number): Promise<void> {
  await getDb()
    .update(dataExports)
    .set({ progress: Math.min(99, Math.round(progress)), updatedAt: sql`now()` })
    .where(eq(dataExports.id, id));
}

function json(value: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
}

const EXTENSIONS: Record<string, string> = {
  "image/webp": "webp",
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/avif": "avif",
};

/**
 * Builds the archive: one JSON file per kind of thing (exportPersonData: only the person's own
 * things), plus every image they uploaded under images/. Images are read one at a time so a
 * large account does not hold them all twice; progress is saved as it goes.
 */
async function prepareDataExport(options: { id: string; userId: string }): Promise<void> {
  const { id, userId } = options;
  const db = getDb();
  const data = await exportPersonData({ userId });
  await setProgress(id, 10);
  const images = await db
    .select({ id: media.id, contentType: media.contentType })
    .from(media)
    .where(eq(media.ownerId, userId))
    .orderBy(asc(media.createdAt));
  const fileOf = (mediaId: string, type: string) =>
    `images/${mediaId}.${EXTENSIONS[type] ?? "bin"}`;
  const types = new Map(images.map((i) => [i.id, i.contentType]));
  const avatarId = data.profile.avatarUrl?.match(/\/media\/([0-9a-f-]{36})$/i)?.[1] ?? null;
  const entries: ZipEntry[] = [
    {
      name: "README.txt",
      data: new TextEncoder().encode(
        [
          `Everything ${data.profile.username} created on Soundtrail, exported ${data.exportedAt}.`,
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
          "listens.json        your listening history (plays, start times in UTC)",
          "images/             the pictures you uploaded",
          "",
        ].join("\n"),
      ),
      compress: true,
    },
    {
      name: "profile.json",
      data: json({
        ...data.profile,
        avatarFile:
          avatarId && types.has(avatarId) ? fileOf(avatarId, types.get(avatarId) ?? "") : null,
        format: data.format,
        exportedAt: data.exportedAt,
      }),
      compress: true,
    },
    { name: "account.json", data: json(data.account), compress: true },
    {
      name: "posts.json",
      data: json(
        data.posts.map((post) => {
          const mediaId = post.imageUrl?.match(/\/media\/([0-9a-f-]{36})$/i)?.[1];
          return {
            ...post,
            imageFile:
              mediaId && types.has(mediaId) ? fileOf(mediaId, types.get(mediaId) ?? "") : null,
          };
        }),
      ),
      compress: true,
    },
    { name: "comments.json", data: json(data.comments), compress: true },
    { name: "likes.json", data: json(data.likes), compress: true },
    { name: "following.json", data: json(data.following), compress: true },
    { name: "followers.json", data: json(data.followers), compress: true },
    { name: "blocked.json", data: json(data.blocked), compress: true },
    { name: "notifications.json", data: json(data.notifications), compress: true },
    { name: "settings.json", data: json(data.notificationPreferences), compress: true },
    {
      name: "assistant-conversations.json",
      data: json(data.assistantConversations),
      compress: true,
    },
    { name: "listens.json", data: json(data.listens), compress: true },
  ];
  let done = 0;
  for (const image of images) {
    const [row] = await db
      .select({ bytes: media.bytes })
      .from(media)
      .where(and(eq(media.id, image.id), eq(media.ownerId, userId)));
    if (row)
      entries.push({ name: fileOf(image.id, image.contentType), data: row.bytes, compress: false });
    done++;
    if (done % 10 === 0 || done === images.length) {
      await setProgress(id, 10 + (85 * done) / images.length);
    }
  }
  const archive = createZip(entries);
  const expiresAt = new Date(Date.now() + EXPORT_KEEP_DAYS * 24 * 60 * 60 * 1000);
  const updated = await db
    .update(dataExports)
    .set({
      status: "ready",
      progress: 100,
      bytes: archive,
      byteSize: archive.byteLength,
      updatedAt: sql`now()`,
      expiresAt,
    })
    .where(and(eq(dataExports.id, id), eq(dataExports.status, "running")))
    .returning({ id: dataExports.id });
  if (updated.length === 0) return;
  await mailDownloadLink({ id, userId, expiresAt });
}

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
      "The archive of everything you created on Soundtrail is ready: your profile, posts, comments, likes, follows, notifications and settings as JSON files, with your pictures.",
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

/** The archive's bytes for its owner while it is ready and not expired; anyone else: not found. */
export async function getDataExportFile(options: {
  userId: string;
  id: string;
}): Promise<{ bytes: Uint8Array; createdAt: Date }> {
  if (!/^[0-9a-f-]{36}$/i.test(options.id)) throw new AppError("not_found", EXPORT_NOT_FOUND);
  const [row] = await getDb()
    .select({ bytes: dataExports.bytes, createdAt: dataExports.createdAt })
    .from(dataExports)
    .where(
      and(
        eq(dataExports.id, options.id),
        eq(dataExports.userId, options.userId),
        eq(dataExports.status, "ready"),
        sql`${dataExports.expiresAt} > now()`,
      ),
    );
  if (!row?.bytes) throw new AppError("not_found", EXPORT_NOT_FOUND);
  return { bytes: row.bytes, createdAt: row.createdAt };
}
