import { and, asc, eq, isNull, notInArray } from "drizzle-orm";
import { z } from "zod";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { journeyChapters } from "~/db/schema";
import { cachedByListens } from "./cache.server";
import { monthlyArtistPlays } from "./period-stats.server";

/**
 * Chapters: periods where the person's taste shifted. Each month with at least
 * CHAPTER_MIN_PLAYS plays is an artist distribution (plays per artist key); a new chapter starts
 * at a month whose distance to the previous counted month is above CHAPTER_SHIFT, the distance
 * being 1 − cosine similarity of the two distributions (0 = the same artists in the same
 * proportions, 1 = no artist in common). Quieter months join the chapter around them. Hidden
 * artists are left out, since others see the chapters too.
 */
export const CHAPTER_SHIFT = 0.6;
export const CHAPTER_MIN_PLAYS = 20;

export interface MonthCounts {
  /** `YYYY-MM`. */
  month: string;
  counts: Map<string, number>;
}

export interface DetectedChapter {
  startsOn: string;
  endsOn: string;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    dot += v * (b.get(k) ?? 0);
  }
  for (const v of b.values()) nb += v * v;
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

function lastDayOf(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** The chapters of months in order (see the rule above); none for an empty history. */
export function detectChapters(months: MonthCounts[]): DetectedChapter[] {
  const sorted = [...months].sort((a, b) => a.month.localeCompare(b.month));
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (!first || !last) return [];
  const starts: string[] = [first.month];
  let previous: MonthCounts | null = null;
  for (const month of sorted) {
    const plays = [...month.counts.values()].reduce((s, n) => s + n, 0);
    if (plays < CHAPTER_MIN_PLAYS) continue;
    if (previous && 1 - cosine(previous.counts, month.counts) > CHAPTER_SHIFT) {
      starts.push(month.month);
    }
    previous = month;
  }
  return starts.map((start, i) => {
    const next = starts[i + 1];
    const endMonth = next
      ? sorted[sorted.findIndex((m) => m.month === next) - 1]?.month
      : last.month;
    return { startsOn: `${start}-01`, endsOn: lastDayOf(endMonth ?? start) };
  });
}

async function monthlyCounts(userId: string, hidden: string[]): Promise<MonthCounts[]> {
  // From the aggregates: each month's plays per artist.
  const rows = await cachedByListens(userId, ["months", [...hidden].sort()], () =>
    monthlyArtistPlays({ userId, hidden }),
  );
  const byMonth = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const counts = byMonth.get(r.month) ?? new Map<string, number>();
    counts.set(r.key, Number(r.plays));
    byMonth.set(r.month, counts);
  }
  return [...byMonth.entries()].map(([month, counts]) => ({ month, counts }));
}

export interface Chapter {
  id: string;
  startsOn: string;
  endsOn: string;
  title: string | null;
  note: string | null;
}

/**
 * Brings the stored chapters in line with the plays: new boundaries are added, the end of each
 * is updated, and chapters that no longer start a shift are removed unless the person titled or
 * annotated them. Returns the chapters, oldest first.
 */
export async function syncChapters(options: {
  userId: string;
  hiddenArtists: string[];
}): Promise<Chapter[]> {
  const detected = detectChapters(await monthlyCounts(options.userId, options.hiddenArtists));
  const db = getDb();
  await db.transaction(async (tx) => {
    for (const chapter of detected) {
      await tx
        .insert(journeyChapters)
        .values({ userId: options.userId, ...chapter })
        .onConflictDoUpdate({
          target: [journeyChapters.userId, journeyChapters.startsOn],
          set: { endsOn: chapter.endsOn },
        });
    }
    await tx.delete(journeyChapters).where(
      and(
        eq(journeyChapters.userId, options.userId),
        isNull(journeyChapters.title),
        isNull(journeyChapters.note),
        detected.length > 0
          ? notInArray(
              journeyChapters.startsOn,
              detected.map((c) => c.startsOn),
            )
          : undefined,
      ),
    );
  });
  return listChapters({ userId: options.userId });
}

export async function listChapters(options: { userId: string }): Promise<Chapter[]> {
  return getDb()
    .select({
      id: journeyChapters.id,
      startsOn: journeyChapters.startsOn,
      endsOn: journeyChapters.endsOn,
      title: journeyChapters.title,
      note: journeyChapters.note,
    })
    .from(journeyChapters)
    .where(eq(journeyChapters.userId, options.userId))
    .orderBy(asc(journeyChapters.startsOn));
}

export const chapterSchema = z.object({
  chapterId: z.uuid("Choose a chapter."),
  title: z.string().trim().max(80, "Keep the title under 80 characters.").default(""),
  note: z.string().trim().max(1000, "Keep the note under 1,000 characters.").default(""),
});

/** Titles and annotates one of the person's own chapters (empty text clears it). */
export async function saveChapter(options: {
  userId: string;
  chapterId: string;
  title: string;
  note: string;
}): Promise<void> {
  const updated = await getDb()
    .update(journeyChapters)
    .set({ title: options.title || null, note: options.note || null, updatedAt: new Date() })
    .where(
      and(eq(journeyChapters.id, options.chapterId), eq(journeyChapters.userId, options.userId)),
    )
    .returning({ id: journeyChapters.id });
  if (updated.length === 0) throw new AppError("not_found", "That chapter could not be found.");
}
