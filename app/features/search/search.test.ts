import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countStatements, getDb } from "~/db/client.server";
import { posts } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { followUser } from "~/features/follows/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  exploreSearch,
  listMusicPosts,
  listTagPosts,
  SEARCH_RANKED_MATCHES,
  searchMusic,
  searchPeople,
  searchPosts,
  searchTags,
  searchTop,
} from "./search.server";

withTestDatabase();

/** A made-up word no other test uses, so each test sees only its own posts. */
function word(prefix = "zq"): string {
  return `${prefix}${randomBytes(4)
    .toString("hex")
    .replace(/\d/g, (d) => "abcdefghij"[Number(d)] ?? "x")}`;
}

async function setCreatedAt(postId: string, date: Date) {
  await getDb().update(posts).set({ createdAt: date }).where(eq(posts.id, postId));
}

/** Every page of a post search, following the cursor (at most 20 pages). */
async function postPages(viewerId: string, query: string, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await searchPosts({ viewerId, query, limit, cursor });
    seen.push(...page.items.map((p) => p.id));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  return { seen, pages };
}

describe("people search", () => {
  it("finds a misspelt name and ignores accents: “jonh” finds John, “bjork” finds Björk Fan", async () => {
    const viewer = await createTestUser();
    const john = await createTestUser({ username: "johnwick_fan", displayName: "John Smith" });
    const bjork = await createTestUser({ username: "icelandic", displayName: "Björk Fan" });
    const jonh = await searchPeople({ viewerId: viewer.id, query: "jonh" });
    expect(jonh.items.map((p) => p.id)).toContain(john.id);
    const accentless = await searchPeople({ viewerId: viewer.id, query: "bjork" });
    expect(accentless.items[0]?.id).toBe(bjork.id);
    expect(accentless.items[0]?.displayName).toBe("Björk Fan");
    const shouting = await searchPeople({ viewerId: viewer.id, query: "BJÖRK" });
    expect(shouting.items.map((p) => p.id)).toContain(bjork.id);
  });

  it("puts an exact username first and shows follower counts and whether the viewer follows", async () => {
    const viewer = await createTestUser();
    const name = word("mira");
    const exact = await createTestUser({ username: name, displayName: "Someone" });
    const similar = await createTestUser({ username: `${name}_fanclub`, displayName: "Fans" });
    await followUser({ viewerId: viewer.id, targetId: exact.id });
    const result = await searchPeople({ viewerId: viewer.id, query: name });
    expect(result.items.map((p) => p.id)).toEqual([exact.id, similar.id]);
    expect(result.items[0]).toMatchObject({ followerCount: 1, isFollowed: true });
    expect(result.items[1]).toMatchObject({ followerCount: 0, isFollowed: false });
  });

  it("never shows someone in a block with the viewer, whoever blocked whom", async () => {
    const viewer = await createTestUser();
    const name = word("kai");
    const blockedByViewer = await createTestUser({ username: `${name}_one` });
    const blockedViewer = await createTestUser({ username: `${name}_two` });
    const visible = await createTestUser({ username: `${name}_three` });
    await blockUser({ viewerId: viewer.id, targetId: blockedByViewer.id });
    await blockUser({ viewerId: blockedViewer.id, targetId: viewer.id });
    const result = await searchPeople({ viewerId: viewer.id, query: name });
    expect(result.items.map((p) => p.id)).toEqual([visible.id]);
  });

  it("pages through everyone without duplicates or gaps", async () => {
    const viewer = await createTestUser();
    const name = word("pag");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createTestUser({ username: `${name}${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const page = await searchPeople({ viewerId: viewer.id, query: name, limit: 3, cursor });
      seen.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(ids.length);
    expect([...seen].sort()).toEqual([...ids].sort());
  });
});

describe("post search", () => {
  it("ranks a match in the music's names above one in the note, then newer before older", async () => {
    const ana = await createTestUser();
    const term = word();
    const inNote = await createTestPost(ana.id, { title: "Something", note: `heard ${term} live` });
    const inTitleOld = await createTestPost(ana.id, { title: `${term} Song`, note: "" });
    const inTitleNew = await createTestPost(ana.id, { title: `${term} Song`, note: "" });
    await setCreatedAt(inTitleOld, new Date(Date.now() - 86_400_000));
    const result = await searchPosts({ viewerId: ana.id, query: term });
    expect(result.items.map((p) => p.id)).toEqual([inTitleNew, inTitleOld, inNote]);
  });

  it("matches notes, artists, albums and tags, accent-blind and stemmed", async () => {
    const ana = await createTestUser();
    const viewer = await createTestUser();
    const tag = word("tg");
    const cafe = await createTestPost(ana.id, { note: "Best listened to in a café at dawn" });
    const running = await createTestPost(ana.id, { note: `Keeps me running ${word()}` });
    const album = await createTestPost(ana.id, { album: "Sigur Rós Ágætis byrjun" });
    const tagged = await createTestPost(ana.id, { note: `Loving this #${tag}` });
    const ids = async (query: string) =>
      (await searchPosts({ viewerId: viewer.id, query, limit: 50 })).items.map((p) => p.id);
    expect(await ids("cafe dawn")).toContain(cafe);
    expect(await ids("run")).toContain(running);
    expect(await ids("agaetis")).toContain(album);
    expect(await ids(`#${tag}`)).toEqual([tagged]);
    expect(await ids(tag)).toEqual([tagged]);
    const [hit] = (await searchPosts({ viewerId: viewer.id, query: tag })).items;
    expect(hit?.tags).toEqual([tag]);
  });

  it("leaves out a word with -word even when the note has it only in a stemmed form", async () => {
    const ana = await createTestUser();
    const a = word();
    const faded = await createTestPost(ana.id, { note: `${a} faded` });
    const plain = await createTestPost(ana.id, { note: `${a} bright` });
    const ids = async (query: string) =>
      (await searchPosts({ viewerId: ana.id, query })).items.map((p) => p.id);
    expect(await ids(`${a} -faded`)).toEqual([plain]);
    expect(await ids(`${a} -fade`)).toEqual([plain]);
    expect((await ids(`${a} fading`)).sort()).toEqual([faded]);
  });

  it("finds names made of stop words", async () => {
    const ana = await createTestUser();
    const id = await createTestPost(ana.id, {
      kind: "artist",
      title: "The The",
      artist: "The The",
    });
    expect(
      (await searchPosts({ viewerId: ana.id, query: "the the" })).items.map((p) => p.id),
    ).toContain(id);
  });

  it("understands quotes, OR and minus", async () => {
    const ana = await createTestUser();
    const a = word();
    const b = word();
    const both = await createTestPost(ana.id, { note: `${a} ${b}` });
    const onlyA = await createTestPost(ana.id, { note: `${a} and more` });
    const onlyB = await createTestPost(ana.id, { note: `${b} only` });
    const ids = async (query: string) =>
      (await searchPosts({ viewerId: ana.id, query })).items.map((p) => p.id).sort();
    expect(await ids(`${a} ${b}`)).toEqual([both]);
    expect(await ids(`${a} or ${b}`)).toEqual([both, onlyA, onlyB].sort());
    expect(await ids(`${a} -${b}`)).toEqual([onlyA]);
    expect(await ids(`"${b} ${a}"`)).toEqual([]);
  });

  it("shows followers-only posts to followers and only-me posts to the author alone", async () => {
    const author = await createTestUser();
    const follower = await createTestUser();
    const stranger = await createTestUser();
    await followUser({ viewerId: follower.id, targetId: author.id });
    const term = word();
    const everyone = await createTestPost(author.id, { note: term, audience: "everyone" });
    const followers = await createTestPost(author.id, { note: term, audience: "followers" });
    const onlyMe = await createTestPost(author.id, { note: term, audience: "only_me" });
    const ids = async (viewerId: string) =>
      (await searchPosts({ viewerId, query: term })).items.map((p) => p.id).sort();
    expect(await ids(stranger.id)).toEqual([everyone]);
    expect(await ids(follower.id)).toEqual([everyone, followers].sort());
    expect(await ids(author.id)).toEqual([everyone, followers, onlyMe].sort());
  });

  it("hides everything of a person in a block with the viewer, either way, in every tab", async () => {
    const viewer = await createTestUser();
    const blocker = await createTestUser();
    const blocked = await createTestUser();
    const term = word();
    const artist = word("artist");
    const tag = word("tag");
    for (const author of [blocker, blocked]) {
      await createTestPost(author.id, { note: `${term} #${tag}`, artist, title: `${term} track` });
    }
    await blockUser({ viewerId: blocker.id, targetId: viewer.id });
    await blockUser({ viewerId: viewer.id, targetId: blocked.id });
    expect((await searchPosts({ viewerId: viewer.id, query: term })).items).toEqual([]);
    const music = await searchMusic({ viewerId: viewer.id, query: artist });
    expect(music.sections.flatMap((s) => s.page.items)).toEqual([]);
    expect((await searchTags({ viewerId: viewer.id, query: tag })).items).toEqual([]);
    const tagPage = await listTagPosts({ viewerId: viewer.id, tag });
    expect(tagPage.postCount).toBe(0);
    expect(tagPage.page.items).toEqual([]);
    const about = await listMusicPosts({
      viewerId: viewer.id,
      item: { section: "artists", name: artist },
    });
    expect(about.items).toEqual([]);
  });

  it("pages by relevance then time without duplicates or gaps, even among equal ranks", async () => {
    const ana = await createTestUser();
    const term = word();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const id = await createTestPost(ana.id, {
        title: i % 3 === 0 ? `${term} title` : "Other",
        note: i % 2 === 0 ? `${term} ${term}` : `${term}`,
      });
      ids.push(id);
      if (i % 4 === 0) await setCreatedAt(id, new Date(Date.UTC(2024, 0, 1)));
    }
    const { seen, pages } = await postPages(ana.id, term, 5);
    expect(pages).toBe(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...ids].sort());
    const all = (await searchPosts({ viewerId: ana.id, query: term, limit: 50 })).items;
    expect(seen).toEqual(all.map((p) => p.id));
  });

  it("ranks only the newest SEARCH_RANKED_MATCHES matches of a word, and its list ends there", async () => {
    const ana = await createTestUser();
    const term = word();
    // A match in the title outranks any match in a note, but it is the oldest match of all.
    const inTitle = await createTestPost(ana.id, { title: `${term} Song`, note: "" });
    await setCreatedAt(inTitle, new Date(Date.UTC(2020, 0, 1)));
    await getDb().execute(sql`
      insert into posts (author_id, kind, title, note, created_at)
      select ${ana.id}, 'track', 'Other', ${term} || ' heard again', now() - g * interval '1 minute'
      from generate_series(1, ${SEARCH_RANKED_MATCHES}) g`);
    const { seen } = await postPages(ana.id, term, 50);
    expect(seen).toHaveLength(SEARCH_RANKED_MATCHES);
    expect(new Set(seen).size).toBe(SEARCH_RANKED_MATCHES);
    expect(seen).not.toContain(inTitle);
    // One match fewer and the title match is among the newest SEARCH_RANKED_MATCHES: it ranks first.
    await getDb().execute(
      sql`delete from posts where id = (select id from posts where author_id = ${ana.id} and title = 'Other' order by created_at desc limit 1)`,
    );
    const first = await searchPosts({ viewerId: ana.id, query: term, limit: 3 });
    expect(first.items[0]?.id).toBe(inTitle);
  });
});

describe("music and tags", () => {
  it("groups artists, albums and tracks with post counts and which followed people posted them", async () => {
    const viewer = await createTestUser();
    const friend = await createTestUser({ displayName: "Friendly Fiona" });
    const other = await createTestUser();
    await followUser({ viewerId: viewer.id, targetId: friend.id });
    const artist = `${word("band")} Orchestra`;
    await createTestPost(friend.id, { artist, title: "Opener", album: "First Light" });
    await createTestPost(other.id, { artist, title: "Opener", album: "First Light" });
    await createTestPost(other.id, { artist: artist.toUpperCase(), title: "Closer", album: "" });
    const result = await searchMusic({ viewerId: viewer.id, query: artist.slice(0, -2) });
    const [artists, albums, tracks] = result.sections;
    expect(artists?.page.items).toEqual([
      expect.objectContaining({ name: artist, postCount: 3, friends: ["Friendly Fiona"] }),
    ]);
    expect(albums?.page.items).toEqual([
      expect.objectContaining({ name: "First Light", artist, postCount: 2, friendCount: 1 }),
    ]);
    expect(tracks?.page.items.map((t) => [t.name, t.postCount])).toEqual([
      ["Opener", 2],
      ["Closer", 1],
    ]);
    const about = await listMusicPosts({
      viewerId: viewer.id,
      item: { section: "tracks", name: "opener", artist },
    });
    expect(about.items).toHaveLength(2);
  });

  it("forgives a typo in an artist's name", async () => {
    const ana = await createTestUser();
    const artist = `${word("qu")}head`;
    await createTestPost(ana.id, { artist });
    const typo = `${artist.slice(0, -2)}ed`;
    const result = await searchMusic({ viewerId: ana.id, query: typo, section: "artists" });
    expect(result.sections[0]?.page.items.map((a) => a.name)).toEqual([artist]);
  });

  it("counts tags over visible posts only and lists a tag's posts newest first", async () => {
    const author = await createTestUser();
    const stranger = await createTestUser();
    const tag = word("shoe");
    const older = await createTestPost(author.id, { note: `#${tag} forever` });
    const newer = await createTestPost(author.id, { note: `More #${tag.toUpperCase()}!` });
    await createTestPost(author.id, { note: `#${tag}`, audience: "only_me" });
    await createTestPost(author.id, { note: `#${tag}bis and not ${tag}` });
    await setCreatedAt(older, new Date(Date.now() - 3_600_000));
    const tags = await searchTags({ viewerId: stranger.id, query: tag.slice(0, 6) });
    expect(tags.items).toEqual([
      { id: tag, tag, postCount: 2 },
      { id: `${tag}bis`, tag: `${tag}bis`, postCount: 1 },
    ]);
    const mine = await searchTags({ viewerId: author.id, query: `#${tag}` });
    expect(mine.items[0]).toEqual({ id: tag, tag, postCount: 3 });
    const list = await listTagPosts({ viewerId: stranger.id, tag });
    expect(list.postCount).toBe(2);
    expect(list.page.items.map((p) => p.id)).toEqual([newer, older]);
  });

  it("does not take digits, e-mail addresses or emoji for tags", async () => {
    const ana = await createTestUser();
    const id = await createTestPost(ana.id, { note: "#123 mail@x#yz #🎸 C#7 #ok_go" });
    const [row] = await getDb()
      .select({ tags: sql<string[]>`tags` })
      .from(posts)
      .where(eq(posts.id, id));
    expect(row?.tags).toEqual(["ok_go"]);
  });

  it("on an empty query, offers the tags and artists of the last seven days and people to follow", async () => {
    const viewer = await createTestUser();
    const poster = await createTestUser();
    const fresh = word("fresh");
    const stale = word("stale");
    const artist = word("Trend");
    await createTestPost(poster.id, { note: `#${fresh}`, artist });
    await createTestPost(poster.id, { note: `#${fresh} again`, artist });
    const old = await createTestPost(poster.id, { note: `#${stale}` });
    // The viewer likes what the poster posts about, so the poster is a suggestion.
    const shared = word("Shared");
    await createTestPost(viewer.id, { artist: shared });
    await createTestPost(poster.id, { artist: shared });
    await setCreatedAt(old, new Date(Date.now() - 8 * 86_400_000));
    const { result, statements } = await countStatements(() =>
      exploreSearch({ viewerId: viewer.id }),
    );
    expect(result.trendingTags).toContainEqual({ id: fresh, tag: fresh, postCount: 2 });
    expect(result.trendingTags.map((t) => t.tag)).not.toContain(stale);
    expect(result.trendingArtists).toContainEqual(
      expect.objectContaining({ name: artist, postCount: 2 }),
    );
    expect(result.suggestions.map((s) => s.id)).toContain(poster.id);
    expect(statements).toBeLessThanOrEqual(5);
  });
});

describe("cost and hostile input", () => {
  it("costs one statement per list and four for the Top tab, whatever the page size", async () => {
    const ana = await createTestUser({ username: word("cost") });
    const term = word();
    for (let i = 0; i < 12; i++) {
      await createTestPost(ana.id, { note: `${term} #${term}`, artist: `${term} band` });
    }
    const viewerId = ana.id;
    const lists: (() => Promise<unknown>)[] = [
      () => searchPeople({ viewerId, query: ana.username }),
      () => searchPosts({ viewerId, query: term }),
      () => searchMusic({ viewerId, query: term }),
      () => searchTags({ viewerId, query: term }),
      () => listMusicPosts({ viewerId, item: { section: "artists", name: `${term} band` } }),
    ];
    for (const run of lists) {
      expect((await countStatements(run)).statements).toBe(1);
    }
    const top = await countStatements(() => searchTop({ viewerId, query: term }));
    expect(top.statements).toBe(4);
    expect(top.result.posts.length).toBeGreaterThan(0);
    expect(top.result.music.length).toBeGreaterThan(0);
    expect(top.result.tags.map((t) => t.tag)).toEqual([term]);
  });

  const hostile = [
    "",
    " ",
    "x".repeat(10_000),
    '"',
    '"unclosed quote',
    "-",
    "--",
    "OR",
    "or or or",
    "a OR -b",
    "!(&|:*)",
    "'); drop table posts; --",
    "\\",
    "%_%",
    "#",
    "##tag",
    "@",
    "🎸🔥",
    "مرحبا بالعالم",
    "שלום",
    "\u0000nul",
    "\ud800lone",
    "tail\udc00",
    "a:* & b:A",
    "<script>alert(1)</script>",
  ];

  it.each(hostile.map((q) => [JSON.stringify(q).slice(0, 40), q]))(
    "answers %s with a list, never an error",
    async (_label, query) => {
      const ana = await createTestUser();
      const top = await searchTop({ viewerId: ana.id, query });
      expect(Array.isArray(top.posts)).toBe(true);
      await searchMusic({ viewerId: ana.id, query, section: "albums", cursor: query });
      await searchPeople({ viewerId: ana.id, query, cursor: query });
      await listTagPosts({ viewerId: ana.id, tag: query, cursor: query });
    },
  );

  it("survives any string as query and cursor (property)", async () => {
    const ana = await createTestUser();
    await createTestPost(ana.id, { note: "something to find #here" });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), fc.string()),
        fc.option(fc.string(), { nil: null }),
        async (query, cursor) => {
          const top = await searchTop({ viewerId: ana.id, query });
          expect(top.people.length).toBeLessThanOrEqual(4);
          await searchPosts({ viewerId: ana.id, query, cursor });
          await searchTags({ viewerId: ana.id, query, cursor });
        },
      ),
      { numRuns: 40 },
    );
  });
});
