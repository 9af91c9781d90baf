/**
 * `npm run seed`: fills this instance with a believable demo community — about 30 people with
 * avatars, several hundred posts over the last four months, follows, likes and comments, and
 * three months of listening history each.
 * Idempotent: every row has a deterministic id and is inserted with ON CONFLICT DO NOTHING,
 * so running it twice adds nothing. Seeded people sign in with SEED_PASSWORD.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { sql } from "drizzle-orm";
import sharp from "sharp";
import { publishLive } from "~/core/live-bus.server";
import { artistKey, titleKey } from "~/core/music-keys";
import { type Database, getDb, openDatabase, rowsOf, setDatabase } from "~/db/client.server";
import { migrateDatabase } from "~/db/migrate.server";
import {
  account,
  comments,
  follows,
  homeTimeline,
  listens,
  media,
  notifications,
  nowPlaying,
  postLikes,
  posts,
  profiles,
  user,
} from "~/db/schema";
import {
  COMMENT_TEMPLATES,
  NOTE_TEMPLATES,
  SEED_ARTISTS,
  SEED_PEOPLE,
  type SeedPerson,
  TAGS,
} from "~/db/seed-data";
import { hashPassword } from "~/features/auth/password.server";
import { recordSocialEvent } from "~/features/notifications/index.server";
import { MOODS } from "~/features/posts/constants";
import { getEnv } from "~/lib/env.server";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const YOUTUBE_CHARS = `${BASE62}-_`;

/** `length` characters of `alphabet`, derived from `name` (the same name, the same id). */
function derivedId(name: string, alphabet: string, length: number): string {
  const bytes = createHash("sha256").update(`soundtrail-seed-link:${name}`).digest();
  let out = "";
  for (let i = 0; i < length; i++)
    out += alphabet[(bytes[i % bytes.length] ?? 0) % alphabet.length];
  return out;
}

function derivedNumber(name: string, digits: number): string {
  const n = derivedId(name, "0123456789", digits);
  return `${n[0] === "0" ? "1" : (n[0] ?? "1")}${n.slice(1)}`;
}

function slug(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "music"
  );
}

/**
 * A seeded post's streaming link, in the real URL shape of each service for a track or an
 * album (Spotify `/track/<22 base62>` and `/album/…`, YouTube `watch?v=<11>`, Apple Music
 * `/us/album/<slug>/<id>?i=<id>`, the artist's Bandcamp album page), never a search page, so
 * the card shows its Play button. The ids are derived from the names (no network here to look
 * the real ones up): the service's player opens and says when it does not know the id. About
 * nine posts in ten get a link; all but the Bandcamp ones can be played in place.
 */
export function seedLink(options: {
  n: number;
  kind: string;
  artist: { name: string; bandcamp?: string };
  album: string;
  track: string;
}): string | null {
  const { n, kind, artist, album, track } = options;
  const roll = Number.parseInt(derivedId(`roll:${n}`, "0123456789", 4), 10) / 10_000;
  const key = `${artist.name}\u0000${album}\u0000${track}`;
  if (roll >= 0.9) return null;
  if (kind === "artist") {
    return `https://open.spotify.com/artist/${derivedId(`spotify-artist:${artist.name}`, BASE62, 22)}`;
  }
  if (kind === "playlist") {
    return `https://open.spotify.com/playlist/${derivedId(`spotify-playlist:${n}`, BASE62, 22)}`;
  }
  if (artist.bandcamp && roll < 0.12) return artist.bandcamp;
  const appleAlbum = derivedNumber(`apple-album:${artist.name}\u0000${album}`, 10);
  if (kind === "album") {
    if (roll < 0.6) {
      return `https://open.spotify.com/album/${derivedId(`spotify-album:${artist.name}\u0000${album}`, BASE62, 22)}`;
    }
    return `https://music.apple.com/us/album/${slug(album)}/${appleAlbum}`;
  }
  if (roll < 0.5)
    return `https://open.spotify.com/track/${derivedId(`spotify-track:${key}`, BASE62, 22)}`;
  if (roll < 0.72)
    return `https://www.youtube.com/watch?v=${derivedId(`youtube:${key}`, YOUTUBE_CHARS, 11)}`;
  return `https://music.apple.com/us/album/${slug(album)}/${appleAlbum}?i=${derivedNumber(`apple-track:${key}`, 10)}`;
}

/** The password of every seeded account (documented in the README). */
export const SEED_PASSWORD = "Soundtrail-demo-2025";
export const SEED_EMAIL_DOMAIN = "demo.soundtrail.test";

const DAY = 24 * 60 * 60 * 1000;

/** A UUID derived from a name, so the same seed row always gets the same id. */
export function seedUuid(name: string): string {
  const h = createHash("sha256").update(`soundtrail-seed:${name}`).digest("hex");
  const variant = ((Number.parseInt(h[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A small deterministic PRNG (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rand: () => number, list: readonly T[]): T {
  const item = list[Math.floor(rand() * list.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

const userId = (p: SeedPerson) => `seed-${p.username.replace(/\./g, "-")}`;

const AVATAR_COLOURS = [
  ["#15803d", "#0e7490"],
  ["#6d28d9", "#be185d"],
  ["#b45309", "#b91c1c"],
  ["#1d4ed8", "#0f766e"],
  ["#4d7c0f", "#15803d"],
  ["#9d174d", "#6d28d9"],
];

async function avatarFor(person: SeedPerson, index: number): Promise<Uint8Array> {
  const [from, to] = AVATAR_COLOURS[index % AVATAR_COLOURS.length] ?? ["#15803d", "#0e7490"];
  const initials = person.displayName
    .split(/\s+/)
    .map((w) => w[0] ?? "")
    .join("")
    .slice(0, 2)
    .toUpperCase()
    .replace(/[^A-ZÀ-Ý]/g, "");
  const angle = (index * 47) % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
  <defs><linearGradient id="g" gradientTransform="rotate(${angle} .5 .5)">
    <stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
  <rect width="256" height="256" fill="url(#g)"/>
  <circle cx="${60 + ((index * 37) % 140)}" cy="${50 + ((index * 53) % 150)}" r="70" fill="#ffffff" fill-opacity="0.12"/>
  <text x="128" y="150" font-family="DejaVu Sans, Arial, sans-serif" font-size="96" font-weight="700"
    text-anchor="middle" fill="#ffffff">${initials}</text></svg>`;
  const out = await sharp(Buffer.from(svg)).webp({ quality: 85 }).toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export interface SeedSummary {
  people: number;
  posts: number;
  follows: number;
  likes: number;
  comments: number;
  /** Plays added to listening histories (0 when every seeded person already had some). */
  listens: number;
  /** People who got unread notifications (0 when each already had some). */
  notified: number;
  /** People shown "now playing". */
  playing: number;
}

/** Inserts the demo community into `db` (already migrated). Safe to run again. */
export async function seedDatabase(db: Database, now = Date.now()): Promise<SeedSummary> {
  const passwordHash = await hashPassword(SEED_PASSWORD);
  const rand = random(20250101);
  const people = SEED_PEOPLE;
  const ids = people.map(userId);

  // People, their sign-in and their avatar.
  for (const [index, person] of people.entries()) {
    const id = userId(person);
    const email = `${person.username.replace(/\./g, "-")}@${SEED_EMAIL_DOMAIN}`;
    const joined = new Date(now - (150 - index * 2) * DAY);
    const mediaId = seedUuid(`avatar:${person.username}`);
    const bytes = await avatarFor(person, index);
    await db.transaction(async (tx) => {
      await tx
        .insert(user)
        .values({
          id,
          name: person.displayName,
          email,
          emailVerified: true,
          username: person.username,
          createdAt: joined,
          updatedAt: joined,
        })
        .onConflictDoNothing();
      await tx
        .insert(account)
        .values({
          id: `${id}-credential`,
          accountId: id,
          providerId: "credential",
          userId: id,
          password: passwordHash,
          createdAt: joined,
          updatedAt: joined,
        })
        .onConflictDoNothing();
      await tx
        .insert(media)
        .values({
          id: mediaId,
          ownerId: id,
          contentType: "image/webp",
          bytes,
          byteSize: bytes.byteLength,
          width: 256,
          height: 256,
          sha256: createHash("sha256").update(bytes).digest("hex"),
          createdAt: joined,
        })
        .onConflictDoNothing();
      await tx
        .insert(profiles)
        .values({
          userId: id,
          email,
          displayName: person.displayName,
          username: person.username,
          avatarUrl: `/media/${mediaId}`,
          bio: person.bio,
          createdAt: joined,
        })
        .onConflictDoNothing();
    });
  }

  // Follows: everyone follows 5–14 others, people who love the same artists more likely.
  const followRows: { followerId: string; followeeId: string; createdAt: Date }[] = [];
  for (const [i, person] of people.entries()) {
    const count = 5 + Math.floor(rand() * 10);
    const scored = people
      .map((other, j) => ({
        j,
        score:
          j === i ? -1 : other.loves.filter((a) => person.loves.includes(a)).length + rand() * 2,
      }))
      .filter((s) => s.score >= 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, count);
    for (const { j } of scored) {
      followRows.push({
        followerId: ids[i] as string,
        followeeId: ids[j] as string,
        createdAt: new Date(now - (120 + Math.floor(rand() * 20)) * DAY),
      });
    }
  }
  await db.insert(follows).values(followRows).onConflictDoNothing();
  const followersOf = new Map<string, Set<string>>();
  for (const f of followRows) {
    const set = followersOf.get(f.followeeId) ?? new Set<string>();
    set.add(f.followerId);
    followersOf.set(f.followeeId, set);
  }

  // Posts over the last ~120 days.
  const postRows: (typeof posts.$inferInsert)[] = [];
  const POSTS = 420;
  for (let n = 0; n < POSTS; n++) {
    const authorIndex = Math.floor(rand() * people.length);
    const person = people[authorIndex] as SeedPerson;
    const artistIndex =
      rand() < 0.8 ? pick(rand, person.loves) : Math.floor(rand() * SEED_ARTISTS.length);
    const artist = SEED_ARTISTS[artistIndex];
    if (!artist) continue;
    const album = pick(rand, artist.albums);
    const roll = rand();
    const kind =
      roll < 0.62 ? "track" : roll < 0.86 ? "album" : roll < 0.95 ? "artist" : "playlist";
    const friend = pick(rand, people).username;
    const note = pick(rand, NOTE_TEMPLATES)
      .replace("{tag}", pick(rand, TAGS))
      .replace("{friend}", friend === person.username ? "ana_rivera" : friend);
    const audienceRoll = rand();
    const audience =
      audienceRoll < 0.76 ? "everyone" : audienceRoll < 0.94 ? "followers" : "only_me";
    const track = pick(rand, album.tracks);
    const title =
      kind === "track"
        ? track
        : kind === "album"
          ? album.title
          : kind === "artist"
            ? artist.name
            : `${pick(rand, ["Late night", "Sunday", "Road trip", "Focus", "Rainy day"])} ${pick(rand, ["mix", "rotation", "favourites"])}`;
    // Drawn to keep the random stream (and so every other field) as it was before links changed.
    rand();
    const linkUrl = seedLink({ n, kind, artist, album: album.title, track });
    const ageMs = Math.floor(rand() ** 1.6 * 120 * DAY);
    postRows.push({
      id: seedUuid(`post:${n}`),
      authorId: ids[authorIndex] as string,
      kind,
      title,
      artist: kind === "playlist" ? person.displayName : artist.name,
      album: kind === "track" ? album.title : kind === "album" ? album.title : null,
      linkUrl,
      note,
      mood: rand() < 0.6 ? pick(rand, MOODS).key : null,
      audience,
      createdAt: new Date(now - ageMs - (n % 60) * 1000),
    });
  }
  // One post with a real, embeddable player.
  postRows.push({
    id: seedUuid("post:classic"),
    authorId: ids[16] as string,
    kind: "track",
    title: "Never Gonna Give You Up",
    artist: "Rick Astley",
    album: "Whenever You Need Somebody",
    linkUrl: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    note: "Request of the week on the show. You know the rules. #throwback",
    mood: "happy",
    audience: "everyone",
    createdAt: new Date(now - 2 * DAY),
  });
  for (let i = 0; i < postRows.length; i += 200) {
    await db
      .insert(posts)
      .values(postRows.slice(i, i + 200))
      .onConflictDoNothing();
  }

  // Likes and comments, from people who may see the post.
  const likeRows: (typeof postLikes.$inferInsert)[] = [];
  const commentRows: (typeof comments.$inferInsert)[] = [];
  for (const [n, post] of postRows.entries()) {
    if (post.audience === "only_me") continue;
    const created = (post.createdAt as Date).getTime();
    const audience =
      post.audience === "everyone"
        ? ids.filter((id) => id !== post.authorId)
        : [...(followersOf.get(post.authorId) ?? [])];
    const likeCount = Math.floor(rand() * Math.min(audience.length, 14));
    const likers = [...audience].sort(() => rand() - 0.5).slice(0, likeCount);
    for (const liker of likers) {
      likeRows.push({
        postId: post.id as string,
        userId: liker,
        createdAt: new Date(Math.min(now, created + Math.floor(rand() * 2 * DAY))),
      });
    }
    const commentCount = rand() < 0.45 ? 1 + Math.floor(rand() * 4) : 0;
    for (let c = 0; c < commentCount && audience.length > 0; c++) {
      commentRows.push({
        commentId: seedUuid(`comment:${n}:${c}`),
        postId: post.id as string,
        userId: pick(rand, audience),
        content: pick(rand, COMMENT_TEMPLATES),
        createdAt: new Date(
          Math.min(now, created + (c + 1) * Math.floor(rand() * 6 * 3600 * 1000)),
        ),
      });
    }
  }
  for (let i = 0; i < likeRows.length; i += 500) {
    await db
      .insert(postLikes)
      .values(likeRows.slice(i, i + 500))
      .onConflictDoNothing();
  }
  for (let i = 0; i < commentRows.length; i += 500) {
    await db
      .insert(comments)
      .values(commentRows.slice(i, i + 500))
      .onConflictDoNothing();
  }

  // Home timelines, as fan-out on write would have built them.
  await db.execute(sql`
    insert into ${homeTimeline} (user_id, created_at, post_id, author_id)
    select p.author_id, p.created_at, p.id, p.author_id from ${posts} p
      where p.author_id like 'seed-%'
    union all
    select f.follower_id, p.created_at, p.id, p.author_id from ${posts} p
      join ${follows} f on f.followee_id = p.author_id
      where p.author_id like 'seed-%' and p.audience <> 'only_me'
    on conflict do nothing`);

  const listenCount = await seedListens(db, now);
  const notified = await seedNotifications(db, postRows, likeRows);
  const playing = await seedNowPlaying(db, now, followRows);

  return {
    people: people.length,
    posts: postRows.length,
    follows: followRows.length,
    likes: likeRows.length,
    comments: commentRows.length,
    listens: listenCount,
    notified,
    playing,
  };
}

/**
 * Unread notifications for each demo person, made the way the app makes them
 * (`recordSocialEvent`, so they group per post and reach open pages live): the likes on their
 * two newest posts. Only likes, which send no e-mail by default, so seeding never mails the
 * demo addresses. A person who already has notifications is left alone (running it again adds
 * nothing). Returns how many people got some.
 */
async function seedNotifications(
  db: Database,
  postRows: (typeof posts.$inferInsert)[],
  likeRows: (typeof postLikes.$inferInsert)[],
): Promise<number> {
  const already = new Set(
    rowsOf<{ recipient_id: string }>(
      await db.execute(
        sql`select distinct recipient_id from ${notifications} where recipient_id like 'seed-%'`,
      ),
    ).map((r) => r.recipient_id),
  );
  const likesOf = new Map<string, (typeof postLikes.$inferInsert)[]>();
  for (const like of likeRows) {
    const list = likesOf.get(like.postId) ?? [];
    list.push(like);
    likesOf.set(like.postId, list);
  }
  const newest = [...postRows]
    .filter((p) => p.audience !== "only_me")
    .sort((a, b) => (b.createdAt as Date).getTime() - (a.createdAt as Date).getTime());
  const taken = new Map<string, number>();
  const people = new Set<string>();
  for (const post of newest) {
    const authorId = post.authorId;
    if (already.has(authorId) || (taken.get(authorId) ?? 0) >= 2) continue;
    const likes = likesOf.get(post.id as string) ?? [];
    if (likes.length === 0) continue;
    taken.set(authorId, (taken.get(authorId) ?? 0) + 1);
    people.add(authorId);
    await db.transaction(async (tx) => {
      for (const like of likes) {
        await recordSocialEvent(tx, {
          type: "postLiked",
          postId: post.id as string,
          authorId,
          likerId: like.userId,
        });
      }
    });
  }
  return people.size;
}

/** How long a seeded "now playing" shows: long enough to look around the demo after seeding. */
export const SEED_NOW_PLAYING_MS = 3 * 60 * 60 * 1000;

/**
 * A few people "now playing" — those the first demo people follow, so their "listening now"
 * strips are full — each a track of an artist they love. Runs again refresh it (the strip is
 * about now), and tell open pages through the live stream.
 */
async function seedNowPlaying(
  db: Database,
  now: number,
  followRows: { followerId: string; followeeId: string }[],
): Promise<number> {
  const first = new Set(SEED_PEOPLE.slice(0, 3).map(userId));
  const chosen = [
    ...new Set(followRows.filter((f) => first.has(f.followerId)).map((f) => f.followeeId)),
  ].slice(0, 6);
  for (const [i, id] of chosen.entries()) {
    const person = SEED_PEOPLE.find((p) => userId(p) === id);
    const artist = person ? SEED_ARTISTS[person.loves[i % person.loves.length] ?? 0] : undefined;
    const album = artist?.albums[i % artist.albums.length];
    const track = album?.tracks[(i * 3) % album.tracks.length];
    if (!artist || !album || !track) continue;
    const startedAt = new Date(now - (i + 1) * 45_000);
    const values = {
      userId: id,
      artistName: artist.name,
      trackName: track,
      releaseName: album.title,
      durationMs: 240_000,
      startedAt,
      expiresAt: new Date(now + SEED_NOW_PLAYING_MS),
    };
    await db.transaction(async (tx) => {
      await tx
        .insert(nowPlaying)
        .values(values)
        .onConflictDoUpdate({ target: nowPlaying.userId, set: values });
      await publishLive(tx, { t: "l", u: id });
    });
  }
  return chosen.length;
}

/**
 * Three months of listening history per person, so the journey has something to show: most
 * days a few plays, in the evening more than at dawn, mostly the artists the person loves and
 * some discoveries — and half-way a shift towards two other artists, which the journey shows as
 * a new chapter. A person who already has plays is left alone, so running the seed again adds
 * nothing. Its own random stream, so the posts above stay as they were.
 */
async function seedListens(db: Database, now: number): Promise<number> {
  const rand = random(20250303);
  const existing = new Set(
    (
      (await db.execute(
        sql`select distinct user_id from ${listens} where user_id like 'seed-%'`,
      )) as unknown as { rows: { user_id: string }[] }
    ).rows.map((r) => r.user_id),
  );
  const today = Math.floor(now / DAY) * DAY;
  const days = 90;
  let added = 0;
  for (const [index, person] of SEED_PEOPLE.entries()) {
    const id = userId(person);
    const later = [(index * 7 + 3) % SEED_ARTISTS.length, (index * 11 + 5) % SEED_ARTISTS.length];
    const rows: (typeof listens.$inferInsert)[] = [];
    for (let day = days; day >= 1; day--) {
      if (rand() < 0.25) continue;
      const plays = 2 + Math.floor(rand() * 18);
      const loves = day > days / 2 ? person.loves : [...later, ...person.loves.slice(0, 1)];
      for (let n = 0; n < plays; n++) {
        const artist =
          SEED_ARTISTS[
            rand() < 0.75 ? pick(rand, loves) : Math.floor(rand() * SEED_ARTISTS.length)
          ];
        const album = artist ? pick(rand, artist.albums) : undefined;
        const track = album ? pick(rand, album.tracks) : undefined;
        if (!artist || !album || !track) continue;
        // Evenings most, mornings some, nights a few.
        const hour = pick(rand, [7, 8, 8, 12, 17, 18, 19, 20, 20, 21, 21, 22, 22, 23, 0]);
        const at = today - day * DAY + hour * 3_600_000 + Math.floor(rand() * 3_500) * 1000;
        rows.push({
          userId: id,
          listenedAt: new Date(at),
          durationMs: 150_000 + Math.floor(rand() * 150_000),
          artistName: artist.name,
          trackName: track,
          releaseName: album.title,
          artistKey: artistKey(artist.name),
          trackKey: titleKey(track),
          releaseKey: titleKey(album.title),
          source: "scrobble",
        });
      }
    }
    if (existing.has(id)) continue;
    for (let i = 0; i < rows.length; i += 1000) {
      await db
        .insert(listens)
        .values(rows.slice(i, i + 1000))
        .onConflictDoNothing();
    }
    added += rows.length;
  }
  return added;
}

/** What a seed did, for the command line and the server's start line. */
export function describeSeedSummary(summary: SeedSummary): string {
  return (
    `Seeded ${summary.people} people, ${summary.posts} posts, ${summary.follows} follows, ` +
    `${summary.likes} likes, ${summary.comments} comments and ${summary.listens} plays ` +
    `(existing rows kept); notifications for ${summary.notified} people, ` +
    `${summary.playing} people playing now. Sign in as e.g. ana_rivera@${SEED_EMAIL_DOMAIN} ` +
    `with the password ${SEED_PASSWORD}`
  );
}

/** Entry point of the bundled seed script (scripts/seed.mjs). */
export async function main(): Promise<void> {
  const env = getEnv();
  const handle = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.join(env.DATA_DIR, "pglite"),
  });
  try {
    await migrateDatabase(handle);
    setDatabase(handle);
    process.stdout.write(`${describeSeedSummary(await seedDatabase(getDb()))}\n`);
  } finally {
    setDatabase(undefined);
    await handle.close();
  }
}
