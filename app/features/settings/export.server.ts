import { and, asc, eq, gt, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import {
  blocks,
  comments,
  follows,
  listens,
  notifications,
  postLikes,
  posts,
  profiles,
  user,
} from "~/db/schema";
import { exportConversations } from "~/features/assistant/index.server";
import { getNotificationPreferences } from "~/features/notifications/index.server";
import { getEnv } from "~/lib/env.server";

/*
 * Everything a person created or chose here: their profile and account details, their posts
 * (with image links), their comments (their own words only), the posts they liked (ids only:
 * another person's post is not theirs to take), whom they follow, who follows them, whom they
 * blocked, their notifications, their preferences, their conversations with the assistant and
 * their listening history.
 *
 * The small parts are read at once (`exportSummary`); the parts that grow with a person's life
 * here — posts, comments, likes, notifications and above all plays (millions for a heavy
 * listener) — are read in pages by keyset (`exportSections`), so neither the archive job nor
 * the JSON download ever holds more than a page.
 */

export const EXPORT_FORMAT = "soundtrail-export/2";

/** Rows read per statement: a page costs a few milliseconds of the database. */
const PAGE_ROWS = 2000;

const absolute = (path: string | null) =>
  path ? new URL(path, getEnv().BASE_URL).toString() : null;

/** The parts of an export that stay small whatever the person did. */
export async function exportSummary(options: { userId: string }) {
  const { userId } = options;
  const db = getDb();
  const [account] = await db
    .select({
      username: profiles.username,
      displayName: profiles.displayName,
      bio: profiles.bio,
      avatarUrl: profiles.avatarUrl,
      email: user.email,
      emailVerified: user.emailVerified,
      phoneNumber: user.phoneNumber,
      createdAt: profiles.createdAt,
    })
    .from(profiles)
    .innerJoin(user, eq(user.id, profiles.userId))
    .where(eq(profiles.userId, userId));
  if (!account) throw new AppError("not_found", "Your account could not be found.");
  const people = (column: typeof follows.followeeId | typeof follows.followerId, where: SQL) =>
    db
      .select({ username: profiles.username, since: follows.createdAt })
      .from(follows)
      .innerJoin(profiles, eq(profiles.userId, column))
      .where(where)
      .orderBy(asc(follows.createdAt));
  const [following, followers, blocked] = await Promise.all([
    people(follows.followeeId, eq(follows.followerId, userId)),
    people(follows.followerId, eq(follows.followeeId, userId)),
    db
      .select({ username: profiles.username, since: blocks.createdAt })
      .from(blocks)
      .innerJoin(profiles, eq(profiles.userId, blocks.blockedId))
      .where(eq(blocks.blockerId, userId))
      .orderBy(asc(blocks.createdAt)),
  ]);
  return {
    format: EXPORT_FORMAT,
    exportedAt: new Date().toISOString(),
    profile: {
      username: account.username,
      displayName: account.displayName,
      bio: account.bio,
      avatarUrl: absolute(account.avatarUrl),
      createdAt: account.createdAt.toISOString(),
    },
    account: {
      email: account.email,
      isEmailVerified: account.emailVerified,
      phoneNumber: account.phoneNumber,
    },
    following,
    followers,
    blocked,
    notificationPreferences: await getNotificationPreferences(userId),
    assistantConversations: await exportConversations({ userId }),
  };
}

export type ExportSummary = Awaited<ReturnType<typeof exportSummary>>;

/**
 * Pages of rows by keyset: `read(after)` returns the rows after the cursor (null: from the
 * start), `cursorOf` the cursor of a row. Ends with the first short page.
 */
async function* keysetPages<T, C>(
  read: (after: C | null) => Promise<T[]>,
  cursorOf: (row: T) => C,
): AsyncGenerator<T[]> {
  let after: C | null = null;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (rows.length < PAGE_ROWS || !last) return;
    after = cursorOf(last);
  }
}

/** Rows after `after` in (time, id) order. */
function afterTimeAndId(time: AnyPgColumn, id: AnyPgColumn, after: { at: Date; id: string }) {
  return or(gt(time, after.at), and(eq(time, after.at), gt(id, after.id)));
}

function postPages(userId: string) {
  return keysetPages(
    async (after: { at: Date; id: string } | null) => {
      const rows = await getDb()
        .select({
          id: posts.id,
          kind: posts.kind,
          title: posts.title,
          artist: posts.artist,
          album: posts.album,
          linkUrl: posts.linkUrl,
          note: posts.note,
          mood: posts.mood,
          audience: posts.audience,
          mediaId: posts.mediaId,
          createdAt: posts.createdAt,
          editedAt: posts.editedAt,
        })
        .from(posts)
        .where(
          and(
            eq(posts.authorId, userId),
            after ? afterTimeAndId(posts.createdAt, posts.id, after) : undefined,
          ),
        )
        .orderBy(asc(posts.createdAt), asc(posts.id))
        .limit(PAGE_ROWS);
      return rows.map(({ mediaId, ...post }) => ({
        ...post,
        imageUrl: absolute(mediaId ? `/media/${mediaId}` : null),
        url: absolute(`/post/${post.id}`),
      }));
    },
    (row) => ({ at: row.createdAt, id: row.id }),
  );
}

function commentPages(userId: string) {
  return keysetPages(
    (after: { at: Date; id: string } | null) =>
      getDb()
        .select({
          id: comments.commentId,
          postId: comments.postId,
          replyToId: comments.replyToId,
          content: comments.content,
          createdAt: comments.createdAt,
          editedAt: comments.editedAt,
        })
        .from(comments)
        .where(
          and(
            eq(comments.userId, userId),
            after ? afterTimeAndId(comments.createdAt, comments.commentId, after) : undefined,
          ),
        )
        .orderBy(asc(comments.createdAt), asc(comments.commentId))
        .limit(PAGE_ROWS),
    (row) => ({ at: row.createdAt, id: row.id }),
  );
}

function likePages(userId: string) {
  return keysetPages(
    (after: { at: Date; id: string } | null) =>
      getDb()
        .select({ postId: postLikes.postId, createdAt: postLikes.createdAt })
        .from(postLikes)
        .where(
          and(
            eq(postLikes.userId, userId),
            after ? afterTimeAndId(postLikes.createdAt, postLikes.postId, after) : undefined,
          ),
        )
        .orderBy(asc(postLikes.createdAt), asc(postLikes.postId))
        .limit(PAGE_ROWS),
    (row) => ({ at: row.createdAt, id: row.postId }),
  );
}

function notificationPages(userId: string) {
  return keysetPages(
    async (after: number | null) => {
      const rows = await getDb()
        .select({
          seq: notifications.seq,
          kind: notifications.kind,
          postId: notifications.postId,
          createdAt: notifications.createdAt,
          readAt: notifications.readAt,
        })
        .from(notifications)
        .where(
          and(
            eq(notifications.recipientId, userId),
            after === null ? undefined : gt(notifications.seq, after),
          ),
        )
        .orderBy(asc(notifications.seq))
        .limit(PAGE_ROWS);
      return rows;
    },
    (row) => row.seq,
  );
}

/** Plays in the order of the history's natural key (its unique index walks them in order). */
function listenPages(userId: string) {
  return keysetPages(
    (after: { at: Date; artist: string; track: string } | null) =>
      getDb()
        .select({
          listenedAt: listens.listenedAt,
          durationMs: listens.durationMs,
          artistName: listens.artistName,
          trackName: listens.trackName,
          releaseName: listens.releaseName,
          source: listens.source,
          artistKey: listens.artistKey,
          trackKey: listens.trackKey,
        })
        .from(listens)
        .where(
          and(
            eq(listens.userId, userId),
            after
              ? sql`(${listens.listenedAt}, ${listens.artistKey}, ${listens.trackKey}) >
                  (${after.at.toISOString()}::timestamptz, ${after.artist}, ${after.track})`
              : undefined,
          ),
        )
        .orderBy(asc(listens.listenedAt), asc(listens.artistKey), asc(listens.trackKey))
        .limit(PAGE_ROWS),
    (row) => ({ at: row.listenedAt, artist: row.artistKey, track: row.trackKey }),
  );
}

/** One part of the export that grows with the person's history, read page by page. */
export interface ExportSection {
  /** Its file in the archive. */
  file: string;
  /** `json`: one JSON array; `jsonl`: one JSON value per line (JSON Lines). */
  format: "json" | "jsonl";
  /** How many rows it has (for progress). */
  count(): Promise<number>;
  /** Its rows, as the file shows them, a page at a time. */
  pages(): AsyncGenerator<Record<string, unknown>[]>;
}

async function countOf(table: SQL, where: SQL): Promise<number> {
  const result = await getDb().execute(sql`select count(*)::int as n from ${table} where ${where}`);
  return Number((result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
}

async function* mapPages<T, U extends Record<string, unknown>>(
  pages: AsyncGenerator<T[]>,
  map: (row: T) => U,
): AsyncGenerator<U[]> {
  for await (const page of pages) yield page.map(map);
}

/** The growing parts of a person's export, in archive order. */
export function exportSections(options: { userId: string }): ExportSection[] {
  const { userId } = options;
  return [
    {
      file: "posts.json",
      format: "json",
      count: () => countOf(sql`posts`, sql`author_id = ${userId}`),
      pages: () => postPages(userId),
    },
    {
      file: "comments.json",
      format: "json",
      count: () => countOf(sql`comments`, sql`user_id = ${userId}`),
      pages: () => commentPages(userId),
    },
    {
      file: "likes.json",
      format: "json",
      count: () => countOf(sql`post_likes`, sql`user_id = ${userId}`),
      pages: () => likePages(userId),
    },
    {
      file: "notifications.json",
      format: "json",
      count: () => countOf(sql`notifications`, sql`recipient_id = ${userId}`),
      pages: () => mapPages(notificationPages(userId), ({ seq: _seq, ...row }) => row),
    },
    {
      file: "listens.jsonl",
      format: "jsonl",
      count: () => countOf(sql`listens`, sql`user_id = ${userId}`),
      pages: () => mapPages(listenPages(userId), ({ artistKey: _a, trackKey: _t, ...row }) => row),
    },
  ];
}

/** The text of a section, a page at a time (`[` … `]` for json, a line per row for jsonl). */
export async function* sectionText(section: ExportSection): AsyncGenerator<string> {
  let first = true;
  if (section.format === "json") yield "[";
  for await (const page of section.pages()) {
    let text = "";
    for (const row of page) {
      if (section.format === "jsonl") text += `${JSON.stringify(row)}\n`;
      else {
        text += `${first ? "\n  " : ",\n  "}${JSON.stringify(row)}`;
        first = false;
      }
    }
    yield text;
  }
  if (section.format === "json") yield first ? "]\n" : "\n]\n";
}

/**
 * The whole export as one JSON document, streamed (the `/settings/data/export` download): the
 * summary's fields, then each section as an array (plays included, as `listens`).
 */
export async function* streamPersonJson(options: { userId: string }): AsyncGenerator<string> {
  const summary = await exportSummary(options);
  const head = JSON.stringify(summary, null, 2);
  yield `${head.slice(0, head.lastIndexOf("}")).trimEnd()}`;
  for (const section of exportSections(options)) {
    const name = section.file.replace(/\.jsonl?$/, "");
    yield `,\n  ${JSON.stringify(name)}: [`;
    let first = true;
    for await (const page of section.pages()) {
      let text = "";
      for (const row of page) {
        text += `${first ? "\n    " : ",\n    "}${JSON.stringify(row)}`;
        first = false;
      }
      yield text;
    }
    yield first ? "]" : "\n  ]";
  }
  yield "\n}\n";
}

/**
 * The whole export as one object in memory. For tests and small accounts only: the server
 * streams instead (`streamPersonJson`, the archive job).
 */
export async function exportPersonData(options: { userId: string }) {
  const summary = await exportSummary(options);
  const all = async (file: string) => {
    const section = exportSections(options).find((s) => s.file === file);
    const rows: Record<string, unknown>[] = [];
    if (section) for await (const page of section.pages()) rows.push(...page);
    return rows;
  };
  return {
    ...summary,
    posts: (await all("posts.json")) as PostRow[],
    comments: (await all("comments.json")) as CommentRow[],
    likes: (await all("likes.json")) as LikeRow[],
    notifications: await all("notifications.json"),
    listens: (await all("listens.jsonl")) as ListenRow[],
  };
}

type PageRow<G> = G extends AsyncGenerator<(infer R)[]> ? R : never;
type PostRow = PageRow<ReturnType<typeof postPages>>;
type CommentRow = PageRow<ReturnType<typeof commentPages>>;
type LikeRow = PageRow<ReturnType<typeof likePages>>;
type ListenRow = Omit<PageRow<ReturnType<typeof listenPages>>, "artistKey" | "trackKey">;

export type PersonExport = Awaited<ReturnType<typeof exportPersonData>>;
