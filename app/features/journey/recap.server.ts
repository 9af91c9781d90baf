import { createHash } from "node:crypto";
import { z } from "zod";
import { AppError } from "~/core/errors";
import { coverSeed } from "~/features/artwork";
import { processImage } from "~/features/media/index.server";
import { AUDIENCES, NOTE_MAX_LENGTH } from "~/features/posts";
import { createPost, postInputSchema } from "~/features/posts/index.server";
import { getJourneyAccess, getJourneySettings } from "./access.server";
import { listChapters } from "./chapters.server";
import { formatDay } from "./components/format";
import type { JourneyOwner } from "./journey-page.server";
import { dayString, resolvePeriod } from "./period";
import {
  RECAP_HEIGHT,
  RECAP_WIDTH,
  type RecapCardData,
  renderRecapPng,
} from "./recap-image.server";
import { getJourneyStats } from "./stats.server";

/**
 * Recap cards: a shareable picture of a period of someone's journey (a week, a month, a year,
 * any range, a chapter). Who may get one is the journey's own rule (getJourneyAccess), and the
 * owner's "recaps" switch turns them off for everyone else. A card is made to travel (downloaded,
 * posted), so the artists the owner hid are left out of it whoever asks, the owner included.
 */

/** Bumped when the drawing changes, so cached cards (ETag) are drawn again. */
const RECAP_DESIGN_VERSION = "1";
const DAY_MS = 86_400_000;

export const RECAPS_OFF_MESSAGE =
  "Recap cards are turned off. Turn them on in Settings › Privacy to make one.";
export const RECAP_NOT_FOUND = "There is no recap card here, or you cannot see it.";
export const RECAP_NO_PLAYS = "No plays in this period, so there is nothing to recap yet.";

/** Whose card it is (the journey's owner fields). */
export type RecapOwner = JourneyOwner;

export type RecapResult =
  | { ok: true; card: RecapCardData; etag: string; fileName: string }
  | { ok: false; status: 400 | 404; message: string };

/**
 * The card's data for `owner` as `viewerId` may see it, for the period in `params`
 * (`period`/`from`/`to` as on the journey page, or `chapter=<id>`).
 */
export async function loadRecap(options: {
  viewerId: string | null;
  owner: RecapOwner;
  params: URLSearchParams;
  now?: Date;
}): Promise<RecapResult> {
  const { owner } = options;
  const access = await getJourneyAccess({ viewerId: options.viewerId, ownerId: owner.id });
  if (!access.allowed) return { ok: false, status: 404, message: RECAP_NOT_FOUND };
  const settings = await getJourneySettings({ userId: owner.id });
  if (!settings.recapsEnabled) {
    return {
      ok: false,
      status: 404,
      message: access.isOwner ? RECAPS_OFF_MESSAGE : RECAP_NOT_FOUND,
    };
  }
  let start: Date | null;
  let end: Date;
  let heading: string;
  let slug: string;
  const chapterId = options.params.get("chapter");
  if (chapterId !== null) {
    const chapters = await listChapters({ userId: owner.id });
    const index = chapters.findIndex((c) => c.id === chapterId);
    const chapter = chapters[index];
    if (!chapter) return { ok: false, status: 404, message: "That chapter could not be found." };
    start = new Date(`${chapter.startsOn}T00:00:00Z`);
    end = new Date(Date.parse(`${chapter.endsOn}T00:00:00Z`) + DAY_MS);
    heading = chapter.title || `Chapter ${index + 1}`;
    slug = `chapter-${chapter.startsOn}`;
  } else {
    const period = resolvePeriod(options.params, options.now);
    if (period.error) return { ok: false, status: 400, message: period.error };
    start = period.start;
    end = period.end;
    heading = period.period === "custom" ? "Listening recap" : period.label;
    slug = period.period === "custom" ? `${period.from}-to-${period.to}` : period.period;
  }
  const stats = await getJourneyStats({
    userId: owner.id,
    start,
    end,
    hiddenArtists: settings.hiddenArtists,
    now: options.now,
  });
  if (stats.totals.plays === 0) return { ok: false, status: 404, message: RECAP_NO_PLAYS };
  const first = stats.start ?? dayString(start ?? end);
  const last = dayString(new Date(Date.parse(`${stats.end}T00:00:00Z`) - DAY_MS));
  const card: RecapCardData = {
    displayName: owner.displayName,
    username: owner.username,
    heading,
    range: first === last ? formatDay(first) : `${formatDay(first)} to ${formatDay(last)}`,
    plays: stats.totals.plays,
    listeningMs: stats.totals.listeningMs,
    estimated: stats.totals.estimatedPlays > 0,
    artists: stats.totals.artists,
    topArtists: stats.topArtists
      .slice(0, 4)
      .map((a) => ({ name: a.name, plays: a.plays, coverSeed: coverSeed(a.name) })),
    topTracks: stats.topTracks
      .slice(0, 5)
      .map((t) => ({ name: t.name, artistName: t.artistName, plays: t.plays })),
  };
  const etag = `"recap-${createHash("sha256")
    .update(RECAP_DESIGN_VERSION)
    .update(JSON.stringify(card))
    .digest("hex")
    .slice(0, 32)}"`;
  return { ok: true, card, etag, fileName: `soundtrail-recap-${owner.username}-${slug}.png` };
}

export { RECAP_HEIGHT, RECAP_WIDTH, renderRecapPng };

/** What "Post to feed" sends: the period as on the page, who sees the post, a short note. */
export const recapPostSchema = z.object({
  audience: z.enum(AUDIENCES, { error: "Choose who can see this post." }),
  note: z
    .string()
    .max(NOTE_MAX_LENGTH, `Keep the note under ${NOTE_MAX_LENGTH.toLocaleString("en")} characters.`)
    .optional()
    .transform((v) => (v ?? "").trim()),
});

/**
 * Posts the viewer's own recap card to the feed: the card is drawn, goes through the same image
 * path as any upload (sharp decodes and re-encodes it), and becomes the post's picture.
 */
export async function postRecap(options: {
  owner: RecapOwner;
  params: URLSearchParams;
  audience: (typeof AUDIENCES)[number];
  note: string;
  now?: Date;
}): Promise<{ postId: string; title: string }> {
  const recap = await loadRecap({
    viewerId: options.owner.id,
    owner: options.owner,
    params: options.params,
    now: options.now,
  });
  if (!recap.ok) {
    throw new AppError(recap.status === 400 ? "invalid" : "not_found", recap.message);
  }
  const title = `My recap: ${recap.card.heading}`;
  const input = postInputSchema.parse({
    kind: "recap",
    title: title.slice(0, 200),
    note: options.note,
    audience: options.audience,
  });
  const image = await processImage(await renderRecapPng(recap.card));
  const { id } = await createPost({ viewerId: options.owner.id, input, image });
  return { postId: id, title: input.title };
}
