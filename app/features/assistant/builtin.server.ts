import { formatCount, formatListening } from "~/features/journey";
import { moodOf } from "~/features/posts";
import { searchHref } from "~/features/search";
import type { PostDraft } from "./constants";
import { type Focus, type Intent, type PeriodSpec, recogniseIntent } from "./intents";
import {
  type ArtistCount,
  draftPost,
  findArtistFans,
  findPosts,
  getFriendsListening,
  getFriendsPlays,
  getListening,
  getPersonPosts,
  getRecentActivity,
  getTopPostedArtists,
  hiddenJourneyMessage,
  type ListeningAnswer,
  type PostRef,
  periodRange,
  periodWords,
  type RankedPlay,
  recommendMusic,
  summarisePosts,
} from "./tools.server";

/*
 * The built-in engine's answers: the recognised intent, the matching data tool, and natural
 * sentences in markdown with links to posts (/post/…), people (/u/…), artists and tags
 * (/search?…). Everything a person wrote (titles, names) is escaped, so it is text, never markup.
 */

export interface BuiltinAnswer {
  text: string;
  draft: PostDraft | null;
}

/** Escapes markdown syntax in text someone typed. */
export function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, "\\$&").replace(/\s+/g, " ");
}

const postLink = (post: PostRef) =>
  `[“${md(post.title)}”${post.artist && post.kind !== "artist" ? ` by ${md(post.artist)}` : ""}](/post/${post.id})`;
const personLink = (username: string, displayName: string) =>
  `[${md(displayName)}](/u/${encodeURIComponent(username)})`;
const artistLink = (artist: string) => `[${md(artist)}](${searchHref({ q: artist })})`;

/** "a, b and c" */
function listOf(items: string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function artistSentence(artists: ArtistCount[]): string {
  return listOf(artists.map((a) => `${artistLink(a.artist)} (${plural(a.postCount, "post")})`));
}

/** "Radiohead", "“In Rainbows” by Radiohead" */
function itemName(item: RankedPlay): string {
  return item.artist ? `“${md(item.name)}” by ${artistLink(item.artist)}` : artistLink(item.name);
}

/** "Radiohead (12 plays)", "“In Rainbows” by Radiohead (9 plays)" */
function playedItem(item: RankedPlay): string {
  return `${itemName(item)} (${plural(item.plays, "play")})`;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

export const HELP_TEXT = [
  "Here is what I can do with your music journey (the same numbers as your journey page):",
  "",
  "- **What have I been into lately?** — your last 30 days",
  "- **My top artists this month** (or this year, in March, last summer, of all time)",
  "- **Which album did I play most this year?** — or tracks",
  "- **How many hours did I listen this month?**",
  "- **Summarise my year** (or 2024, or last month)",
  "- **What are my friends listening to?**",
  "- **What has Ben been posting?** / **What has Ben been listening to?** — as their profile and journey show it to you",
  "- **Any jazz tips from people I follow?**",
  "- **Who else here likes Radiohead?**",
  "- **Recommend me something new** — artists you have neither played nor posted",
  "- **Find posts about #jazz** (a tag or any words)",
  "- **Draft a post about Heroes by David Bowie**",
].join("\n");

/** "12 h 5 min" as the journey shows it, "≈" when some lengths were estimated. */
function listeningTime(a: { listeningMs: number; estimatedPlays: number }): string {
  return `${a.estimatedPlays > 0 ? "about " : ""}${formatListening(a.listeningMs)}`;
}

function hoursOf(ms: number): string {
  const hours = Math.round((ms / 3_600_000) * 10) / 10;
  return `${formatCount(hours)} ${hours === 1 ? "hour" : "hours"}`;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "you" / "Ben" and their possessive, for sentences about either. */
function who(a: Extract<ListeningAnswer, { state: "shown" }>) {
  if (a.isOwner) return { name: "you", owner: "your", link: "your journey" };
  const name = personLink(a.person.username, a.person.displayName);
  return { name, owner: `${name}’s`, link: `${md(a.person.displayName)}’s journey` };
}

/** A listening answer in sentences, for one focus. */
function listeningText(a: Extract<ListeningAnswer, { state: "shown" }>, focus: Focus): string {
  const w = who(a);
  const when = a.period;
  const link = `[See it in ${w.link}](${a.journeyHref})`;
  const total = `${plural(a.plays, "play")} in all`;
  if (focus === "time") {
    return [
      `${capitalise(w.name)} listened for ${listeningTime(a)} ${when} — ${a.estimatedPlays > 0 ? "about " : ""}${hoursOf(a.listeningMs)}, over ${plural(a.plays, "play")}.`,
      a.estimatedPlays > 0
        ? `${plural(a.estimatedPlays, "play")} had no length, so each counts as 3½ minutes.`
        : "",
      link,
    ]
      .filter(Boolean)
      .join(" ");
  }
  if (focus === "plays") {
    return `${capitalise(w.name)} played ${plural(a.plays, "track")} ${when}, by ${plural(a.artistCount, "artist")} (${listeningTime(a)}). ${link}`;
  }
  const ranked = {
    artists: { items: a.topArtists, one: "artist" },
    albums: { items: a.topAlbums, one: "album" },
    tracks: { items: a.topTracks, one: "track" },
  } as const;
  if (focus === "artists" || focus === "albums" || focus === "tracks") {
    const { items, one } = ranked[focus];
    const [first, ...rest] = items;
    if (!first) {
      return `${capitalise(w.name)} played ${plural(a.plays, "track")} ${when}, but none of them named ${one === "album" ? "an" : "a"} ${one}, so I cannot tell which ${one} it was. ${link}`;
    }
    return [
      `${capitalise(w.owner)} most played ${one} ${when} is ${itemName(first)}, with ${plural(first.plays, "play")} (of ${total}).`,
      ...(rest.length > 0
        ? ["", "After that:", ...rest.slice(0, 4).map((i) => `- ${playedItem(i)}`)]
        : []),
      "",
      link,
    ].join("\n");
  }
  const lines = [
    `${capitalise(when)} ${w.name} played ${plural(a.plays, "track")} (${listeningTime(a)}) by ${plural(a.artistCount, "artist")}, most of all ${listOf(a.topArtists.slice(0, 3).map(playedItem))}.`,
  ];
  if (a.topAlbums[0]) lines.push(`Top album: ${playedItem(a.topAlbums[0])}.`);
  if (a.topTracks[0]) lines.push(`Top track: ${playedItem(a.topTracks[0])}.`);
  lines.push(link);
  return lines.join(" ");
}

/** The plain words when a listening answer has no numbers to give. */
function noListening(a: ListeningAnswer): string | null {
  if (a.state === "unknown_person") {
    return `I do not know anyone here called ${md(a.name)}, so I cannot tell you what they listen to. Try their username, like @${md(a.name.split(/\s+/)[0]?.toLowerCase() ?? "")}.`;
  }
  if (a.state === "hidden") {
    const said = hiddenJourneyMessage(md(a.person.displayName), a.audience);
    return `${said} So I cannot tell you what they listen to.`;
  }
  if (a.state === "bad_period") return `I cannot show that period: ${md(a.message)}`;
  if (a.plays > 0) return null;
  const w = who(a);
  return a.isOwner
    ? `I do not know: your journey has no plays ${a.period}. Connect a player or import your listening history in [your journey](${a.journeyHref}), and I can tell you.`
    : `I do not know: ${w.name} has no plays ${a.period} that you can see. [Their journey](${a.journeyHref})`;
}

async function listeningAnswer(options: {
  viewerId: string;
  person: string | null;
  focus: Focus;
  period: PeriodSpec;
  now: Date;
}): Promise<string> {
  const { viewerId, focus, period, now } = options;
  const answer = await getListening({ viewerId, person: options.person, period, now });
  const missing = noListening(answer);
  if (missing === null && answer.state === "shown") {
    let text = listeningText(answer, focus);
    // "Lately" for the person asking: what they shared too.
    if (
      answer.isOwner &&
      focus === "overview" &&
      period.kind === "rolling" &&
      period.period === "month"
    ) {
      const recent = await getRecentActivity({ viewerId, now });
      if (recent.postCount > 0) {
        text += ` You also shared ${plural(recent.postCount, "post")}; the latest: ${listOf(recent.posts.slice(0, 3).map(postLink))}.`;
      }
    }
    return text;
  }
  // No plays of their own: their posts still say what they have been into.
  if (answer.state === "shown" && answer.isOwner && focus === "artists") {
    const posted = await getTopPostedArtists({ viewerId, period, now });
    if (posted.length > 0) {
      const [first, ...rest] = posted;
      const lines = [
        `Your top artist ${answer.period} is ${artistLink(first?.artist ?? "")}, posted ${times(first?.postCount ?? 0)} — from your posts, as your journey has no plays ${answer.period}.`,
      ];
      if (rest.length > 0) {
        lines.push("", "After that:");
        for (const a of rest)
          lines.push(`- ${artistLink(a.artist)} (${plural(a.postCount, "post")})`);
      }
      return lines.join("\n");
    }
  }
  if (answer.state === "shown" && answer.isOwner && focus === "overview") {
    const posted = await summarisePosts({ viewerId, ...periodRange(period, now) });
    if (posted.postCount > 0) {
      const lines = [
        `${capitalise(answer.period)} you shared ${plural(posted.postCount, "post")}${posted.artists.length > 0 ? `, most about ${artistSentence(posted.artists.slice(0, 3))}` : ""}; your journey has no plays then.`,
      ];
      if (period.kind === "rolling" && period.period === "month") {
        const recent = await getRecentActivity({ viewerId, now });
        if (recent.posts.length > 0) {
          lines.push(`Your latest: ${listOf(recent.posts.slice(0, 3).map(postLink))}.`);
        }
      }
      return lines.join(" ");
    }
  }
  return missing ?? "";
}

/** Runs the intent's tool and words the answer. */
export async function answerIntent(options: {
  viewerId: string;
  intent: Intent;
  now?: Date;
}): Promise<BuiltinAnswer> {
  const { viewerId, intent } = options;
  const now = options.now ?? new Date();
  const say = (text: string): BuiltinAnswer => ({ text, draft: null });
  switch (intent.kind) {
    case "listening":
      return say(
        await listeningAnswer({
          viewerId,
          person: intent.person,
          focus: intent.focus,
          period: intent.period,
          now,
        }),
      );
    case "posts_by": {
      const found = await getPersonPosts({ viewerId, person: intent.person });
      if (found.state === "unknown_person") {
        return say(`I do not know anyone here called ${md(found.name)}.`);
      }
      const name = personLink(found.person.username, found.person.displayName);
      if (found.youBlocked) {
        return say(`You blocked ${name}. Neither of you sees the other's posts.`);
      }
      if (found.posts.length === 0) {
        return say(`I see no posts from ${name} that you may see.`);
      }
      const lines = [
        `${name} has ${plural(found.postCount, "post")} you can see. The latest:`,
        "",
        ...found.posts.map((p) => `- ${postLink(p)} (${p.createdAt.slice(0, 10)})`),
      ];
      return say(lines.join("\n"));
    }
    case "friends": {
      const [{ posts }, { friends }] = await Promise.all([
        getFriendsListening({ viewerId }),
        getFriendsPlays({ viewerId, now }),
      ]);
      if (friends.length > 0) {
        const lines = ["What the people you follow played most in the last 30 days:", ""];
        for (const f of friends) {
          lines.push(
            `- ${personLink(f.username, f.displayName)}: ${artistLink(f.artist)} (${plural(f.plays, "play")})`,
          );
        }
        if (posts.length > 0) {
          lines.push("", "And what they shared lately:", "");
          for (const post of posts) {
            lines.push(
              `- ${personLink(post.author.username, post.author.displayName)}: ${postLink(post)}`,
            );
          }
        }
        return say(lines.join("\n"));
      }
      if (posts.length === 0) {
        return say(
          "I see nothing from the people you follow yet. Follow a few people (try [search](/search)) and I will tell you what they play.",
        );
      }
      const lines = ["Here is what the people you follow shared lately:", ""];
      for (const post of posts) {
        lines.push(
          `- ${personLink(post.author.username, post.author.displayName)}: ${postLink(post)}`,
        );
      }
      return say(lines.join("\n"));
    }
    case "friends_topic": {
      const found = await findPosts({ viewerId, query: intent.topic, onlyFollowed: true });
      const label = found.tag ? `#${found.tag}` : `“${found.query}”`;
      if (found.posts.length === 0) {
        return say(
          `I found nothing about ${md(label)} from the people you follow. [Search everyone's posts](${searchHref({ q: found.query })})`,
        );
      }
      const lines = [`From the people you follow, about ${md(label)}:`, ""];
      for (const post of found.posts) {
        lines.push(
          `- ${postLink(post)}, shared by ${personLink(post.author.username, post.author.displayName)}`,
        );
      }
      return say(lines.join("\n"));
    }
    case "who_likes": {
      const fans = await findArtistFans({ viewerId, artist: intent.artist });
      if (fans.people.length === 0) {
        return say(
          `I found nobody else here who posted about ${md(intent.artist)} — at least not in a post you can see.`,
        );
      }
      const lines = [`People here who like ${artistLink(fans.artist)}:`, ""];
      for (const p of fans.people) {
        lines.push(
          `- ${personLink(p.username, p.displayName)} — [${plural(p.postCount, "post")}](/post/${p.postId})`,
        );
      }
      return say(lines.join("\n"));
    }
    case "recommend": {
      const { recommendations } = await recommendMusic({ viewerId });
      if (recommendations.length === 0) {
        return say(
          "I have nothing new for you yet: everything the people you follow share, you already play or posted. Follow a few more people and I will find music new to you.",
        );
      }
      const lines = [
        "Something new for you — artists you have neither played nor posted, from people you follow and people with a similar taste:",
        "",
      ];
      for (const r of recommendations) {
        const by = listOf(r.sharedBy.map((u) => `[@${md(u)}](/u/${encodeURIComponent(u)})`));
        lines.push(`- ${artistLink(r.artist)} — try ${postLink(r.post)}, shared by ${by}`);
      }
      return say(lines.join("\n"));
    }
    case "summary": {
      const [listening, posted] = await Promise.all([
        getListening({ viewerId, period: intent.period, now }),
        summarisePosts({ viewerId, ...periodRange(intent.period, now) }),
      ]);
      const when = periodWords(intent.period);
      const lines: string[] = [];
      if (listening.state === "bad_period")
        return say(`I cannot show that period: ${md(listening.message)}`);
      const shown = listening.state === "shown" && listening.plays > 0 ? listening : null;
      if (shown) {
        lines.push(
          `${capitalise(when)} you played ${plural(shown.plays, "track")} (${listeningTime(shown)}) by ${plural(shown.artistCount, "artist")}${shown.discoveries > 0 ? `, ${formatCount(shown.discoveries)} of them new to you` : ""}.`,
        );
        if (shown.topArtists[0]) lines.push(`Top artist: ${playedItem(shown.topArtists[0])}.`);
        if (shown.topAlbums[0]) lines.push(`Top album: ${playedItem(shown.topAlbums[0])}.`);
        if (shown.topTracks[0]) lines.push(`Top track: ${playedItem(shown.topTracks[0])}.`);
        if (shown.longestStreakDays && shown.longestStreakDays > 1) {
          lines.push(`Longest streak: ${shown.longestStreakDays} days.`);
        }
      }
      if (posted.postCount > 0) {
        lines.push(
          `${shown ? "You also" : `${capitalise(when)} you`} shared ${plural(posted.postCount, "post")}${posted.artists.length > 0 ? `, most about ${artistSentence(posted.artists.slice(0, 3))}` : ""}.`,
        );
        const mood = moodOf(posted.topMood);
        if (mood)
          lines.push(`Your most frequent mood was ${mood.label.toLowerCase()} ${mood.emoji}.`);
        if (
          posted.busiestMonth &&
          posted.busiestMonth.postCount > 1 &&
          intent.period.kind === "range" &&
          intent.period.from.slice(0, 7) !== intent.period.to.slice(0, 7)
        ) {
          lines.push(
            `${MONTHS[posted.busiestMonth.month - 1]} was your busiest month for posts, with ${plural(posted.busiestMonth.postCount, "post")}.`,
          );
        }
        if (posted.firstPost) lines.push(`It started with ${postLink(posted.firstPost)}.`);
      }
      if (lines.length === 0) {
        return say(`I do not know: you neither played nor posted anything ${when}.`);
      }
      if (shown) lines.push(`[See it in your journey](${shown.journeyHref})`);
      return say(lines.join(" "));
    }
    case "find": {
      const found = await findPosts({ viewerId, query: intent.query });
      // The same link as a #tag in a note (NoteText): the tag's posts.
      const href = found.tag
        ? searchHref({ q: `#${found.tag}`, type: "tags" })
        : searchHref({ q: found.query });
      const label = found.tag ? `#${found.tag}` : `“${found.query}”`;
      if (found.posts.length === 0) {
        return say(`I found no posts about ${md(label)} that you can see.`);
      }
      const lines = [`Posts about [${md(label)}](${href}):`, ""];
      for (const post of found.posts) {
        lines.push(
          `- ${postLink(post)}, shared by ${personLink(post.author.username, post.author.displayName)}`,
        );
      }
      lines.push("", `[See all results](${href})`);
      return say(lines.join("\n"));
    }
    case "draft": {
      if (!intent.track) {
        return say("Which track? Try “Draft a post about Heroes by David Bowie”.");
      }
      const { draft } = await draftPost({ viewerId, track: intent.track });
      if (!draft) return say("Which track? Try “Draft a post about Heroes by David Bowie”.");
      return {
        text: draft.artist
          ? `Here is a draft about “${md(draft.title)}” by ${md(draft.artist)}. Change anything you like, then publish it.`
          : `Here is a draft about “${md(draft.title)}”. Add the artist, change anything you like, then publish it.`,
        draft,
      };
    }
    case "help":
      return say(HELP_TEXT);
    default:
      return say(`Sorry, I did not understand that. ${HELP_TEXT}`);
  }
}

/** The built-in engine's whole answer to a message. */
export async function answerWithBuiltin(options: {
  viewerId: string;
  message: string;
  now?: Date;
}): Promise<BuiltinAnswer> {
  return answerIntent({
    viewerId: options.viewerId,
    intent: recogniseIntent(options.message, options.now ?? new Date()),
    now: options.now,
  });
}
