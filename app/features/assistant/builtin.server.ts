import { moodOf } from "~/features/posts";
import { searchHref } from "~/features/search";
import type { PostDraft } from "./constants";
import { type Intent, recogniseIntent } from "./intents";
import {
  type ArtistCount,
  draftPost,
  findArtistFans,
  findPosts,
  getFriendsListening,
  getFriendsPlays,
  getListeningHistory,
  getRecentActivity,
  getTopArtists,
  type PlayedArtist,
  type PostRef,
  recommendMusic,
  summariseYear,
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

function playedSentence(artists: PlayedArtist[]): string {
  return listOf(artists.map((a) => `${artistLink(a.artist)} (${plural(a.plays, "play")})`));
}

const PERIOD_WORDS = {
  week: "in the last seven days",
  month: "this month",
  year: "this year",
  all: "so far",
} as const;

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
  "Here is what I can do with your music journey:",
  "",
  "- **What have I been into lately?** — your last 30 days",
  "- **My top artists this month** (or this year, or of all time)",
  "- **What are my friends listening to?**",
  "- **Who else here likes Radiohead?**",
  "- **Recommend me something new** — from friends and people with a similar taste",
  "- **Summarise my year**",
  "- **Find posts about #jazz** (a tag or any words)",
  "- **Draft a post about Heroes by David Bowie**",
].join("\n");

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
    case "recent": {
      // Plays when the person has any (their journey), else what they posted.
      const history = await getListeningHistory({ viewerId, period: "30days", now });
      const recent = await getRecentActivity({ viewerId, now });
      if (history.plays > 0) {
        const lines = [
          `In the last 30 days you played ${plural(history.plays, "track")}, most of all ${playedSentence(history.artists)}.`,
        ];
        if (recent.postCount > 0) {
          lines.push(
            `You also shared ${plural(recent.postCount, "post")}; the latest: ${listOf(recent.posts.slice(0, 3).map(postLink))}.`,
          );
        }
        lines.push("More in [your journey](/profile).");
        return say(lines.join(" "));
      }
      if (recent.postCount === 0) {
        return say(
          "You have not posted anything in the last 30 days. Share what you are playing on the [feed](/feed?compose=1) and I can tell you more next time.",
        );
      }
      const lines = [
        `In the last 30 days you shared ${plural(recent.postCount, "post")}.`,
        recent.artists.length > 0 ? `You have been into ${artistSentence(recent.artists)}.` : "",
        `Your latest: ${listOf(recent.posts.slice(0, 3).map(postLink))}.`,
      ];
      return say(lines.filter(Boolean).join(" "));
    }
    case "top_artists": {
      const when = PERIOD_WORDS[intent.period];
      const played = await getListeningHistory({ viewerId, period: intent.period, now });
      if (played.artists.length > 0) {
        const [first, ...rest] = played.artists;
        const lines = [
          `Your most played artist ${when} is ${artistLink(first?.artist ?? "")}, with ${plural(first?.plays ?? 0, "play")} (of ${plural(played.plays, "play")} in all).`,
        ];
        if (rest.length > 0) {
          lines.push("", "After that:");
          for (const a of rest)
            lines.push(`- ${artistLink(a.artist)} (${plural(a.plays, "play")})`);
        }
        return say(lines.join("\n"));
      }
      const top = await getTopArtists({ viewerId, period: intent.period, now });
      if (top.artists.length === 0) {
        return say(
          `I found no artists in your posts ${when}. Posts about a track, an album or an artist count.`,
        );
      }
      const [first, ...rest] = top.artists;
      const lines = [
        `Your top artist ${when} is ${artistLink(first?.artist ?? "")}, posted ${times(first?.postCount ?? 0)}.`,
      ];
      if (rest.length > 0) {
        lines.push("", "After that:");
        for (const a of rest)
          lines.push(`- ${artistLink(a.artist)} (${plural(a.postCount, "post")})`);
      }
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
          "I have nothing new for you yet: follow a few people, or share more of what you like, and I will find music you have not posted about.",
        );
      }
      const lines = [
        "Something new for you, from people you follow and people with a similar taste:",
        "",
      ];
      for (const r of recommendations) {
        const who = listOf(r.sharedBy.map((u) => `[@${md(u)}](/u/${encodeURIComponent(u)})`));
        lines.push(`- ${artistLink(r.artist)} — try ${postLink(r.post)}, shared by ${who}`);
      }
      return say(lines.join("\n"));
    }
    case "summary": {
      const year = intent.year ?? now.getUTCFullYear();
      const summary = await summariseYear({ viewerId, year });
      if (summary.postCount === 0) return say(`You did not post anything in ${year}.`);
      const lines = [`Your ${year} in music: you shared ${plural(summary.postCount, "post")}.`];
      if (summary.artists.length > 0) {
        lines.push(`Your top artists were ${artistSentence(summary.artists)}.`);
      }
      const mood = moodOf(summary.topMood);
      if (mood)
        lines.push(`Your most frequent mood was ${mood.label.toLowerCase()} ${mood.emoji}.`);
      if (summary.busiestMonth) {
        lines.push(
          `${MONTHS[summary.busiestMonth.month - 1]} was your busiest month, with ${plural(summary.busiestMonth.postCount, "post")}.`,
        );
      }
      if (summary.firstPost) lines.push(`It all started with ${postLink(summary.firstPost)}.`);
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
    intent: recogniseIntent(options.message),
    now: options.now,
  });
}
