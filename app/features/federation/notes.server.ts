import {
  type Context,
  Create,
  Hashtag,
  Image,
  Link,
  Mention,
  Note,
  PropertyValue,
  PUBLIC_COLLECTION,
} from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import { media, posts, profiles, remoteActors } from "~/db/schema";
import { textToHtml } from "./sanitize.server";

/** A local post as it federates. */
export interface FederatedPost {
  id: string;
  authorId: string;
  username: string;
  kind: string;
  title: string;
  artist: string | null;
  album: string | null;
  linkUrl: string | null;
  note: string;
  mood: string | null;
  audience: "everyone" | "followers" | "only_me";
  mediaId: string | null;
  mediaType: string | null;
  createdAt: Date;
  editedAt: Date | null;
}

/** The local post with this id (never a remote one), or null. */
export async function loadLocalPost(db: DbOrTx, postId: string): Promise<FederatedPost | null> {
  if (!/^[0-9a-f-]{36}$/i.test(postId)) return null;
  const [row] = rowsOf<{
    id: string;
    author_id: string;
    username: string;
    kind: string;
    title: string;
    artist: string | null;
    album: string | null;
    link_url: string | null;
    note: string;
    mood: string | null;
    audience: FederatedPost["audience"];
    media_id: string | null;
    media_type: string | null;
    created_at: string | Date;
    edited_at: string | Date | null;
  }>(
    await db.execute(sql`
      select p.id, p.author_id, pr.username, p.kind, p.title, p.artist, p.album, p.link_url,
        p.note, p.mood, p.audience, p.media_id, m.content_type as media_type, p.created_at,
        p.edited_at
      from ${posts} p
      join ${profiles} pr on pr.user_id = p.author_id
      left join ${media} m on m.id = p.media_id
      where p.id = ${postId}::uuid
        and not exists (select 1 from ${remoteActors} r where r.user_id = p.author_id)`),
  );
  if (!row) return null;
  return {
    id: row.id,
    authorId: row.author_id,
    username: row.username,
    kind: row.kind,
    title: row.title,
    artist: row.artist,
    album: row.album,
    linkUrl: row.link_url,
    note: row.note,
    mood: row.mood,
    audience: row.audience,
    mediaId: row.media_id,
    mediaType: row.media_type,
    createdAt: new Date(row.created_at),
    editedAt: row.edited_at ? new Date(row.edited_at) : null,
  };
}

function instant(date: Date) {
  return Temporal.Instant.from(date.toISOString());
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The URL of a local post's object (its page: browsers get HTML, servers the Note). */
export function postUri(ctx: Context<void>, postId: string): URL {
  return new URL(`/post/${postId}`, ctx.canonicalOrigin);
}

/**
 * A local post as an ActivityPub `Note`: the music and the note as sanitised HTML (our own
 * escaping of plain text), the streaming link as a link and a `Link` attachment, the cover as
 * an `Image`, the music's fields as `PropertyValue`s a Soundtrail reader turns back into a
 * card, hashtags and mentions as tags. Everyone → `to: Public`, followers → the followers
 * collection only. Only-me posts are never built (the caller refuses them).
 */
export function postToNote(ctx: Context<void>, post: FederatedPost): Note {
  const actor = ctx.getActorUri(post.username);
  const followers = ctx.getFollowersUri(post.username);
  const isPublic = post.audience === "everyone";
  const music = [
    post.title,
    post.artist && post.artist !== post.title ? post.artist : null,
    post.album,
  ]
    .filter((part): part is string => Boolean(part))
    .map(escapeHtml)
    .join(" — ");
  const musicHtml = post.linkUrl
    ? `<p>🎵 <a href="${escapeHtml(post.linkUrl)}" rel="nofollow noopener ugc" target="_blank">${music}</a></p>`
    : `<p>🎵 ${music}</p>`;
  const tags = [...post.note.matchAll(/(?<![\p{L}\p{N}_&#/])#([\p{L}\p{N}_]{1,50})/gu)].map(
    (m) =>
      new Hashtag({
        name: `#${m[1]}`,
        href: new URL(`/search?q=${encodeURIComponent(`#${m[1]}`)}`, ctx.canonicalOrigin),
      }),
  );
  const mentions = [
    ...post.note.matchAll(/(?<![\p{L}\p{N}_@./])@([A-Za-z0-9_.]{3,30})(?![@\w])/gu),
  ].map((m) => new Mention({ name: `@${m[1]}`, href: ctx.getActorUri(m[1] ?? "") }));
  const attachments: (Link | Image | PropertyValue)[] = [];
  if (post.linkUrl) {
    attachments.push(
      new Link({ href: new URL(post.linkUrl), name: post.title, mediaType: "text/html" }),
    );
  }
  if (post.mediaId) {
    attachments.push(
      new Image({
        url: new URL(`/media/${post.mediaId}`, ctx.canonicalOrigin),
        mediaType: post.mediaType ?? "image/webp",
        name: `Cover of ${post.title}`,
      }),
    );
  }
  attachments.push(new PropertyValue({ name: "soundtrail:kind", value: post.kind }));
  attachments.push(new PropertyValue({ name: "soundtrail:title", value: post.title }));
  if (post.artist)
    attachments.push(new PropertyValue({ name: "soundtrail:artist", value: post.artist }));
  if (post.album)
    attachments.push(new PropertyValue({ name: "soundtrail:album", value: post.album }));
  if (post.mood) attachments.push(new PropertyValue({ name: "soundtrail:mood", value: post.mood }));
  return new Note({
    id: postUri(ctx, post.id),
    attribution: actor,
    name: null,
    content: `${musicHtml}${textToHtml(post.note)}`,
    url: postUri(ctx, post.id),
    published: instant(post.createdAt),
    updated: post.editedAt ? instant(post.editedAt) : null,
    tos: isPublic ? [PUBLIC_COLLECTION] : [followers],
    ccs: isPublic ? [followers] : [],
    attachments,
    tags: [...tags, ...mentions],
  });
}

/** `Create` of the post's Note, addressed like the Note. */
export function postToCreate(ctx: Context<void>, post: FederatedPost): Create {
  const note = postToNote(ctx, post);
  return new Create({
    id: new URL(`/post/${post.id}#create`, ctx.canonicalOrigin),
    actor: ctx.getActorUri(post.username),
    object: note,
    published: instant(post.createdAt),
    tos: note.toIds,
    ccs: note.ccIds,
  });
}
