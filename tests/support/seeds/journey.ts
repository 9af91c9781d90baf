import { artistKey, titleKey } from "~/core/music-keys";
import { account, follows, listens, profiles, user } from "~/db/schema";
import { hashPassword } from "~/features/auth/password.server";
import {
  E2E_PASSWORD,
  JOURNEY_FOLLOWER,
  JOURNEY_OWNER,
  JOURNEY_PLAYS,
  JOURNEY_STRANGER,
} from "../e2e-accounts";
import type { Seed } from "../e2e-seed";

/** The journey spec's people (who can sign in), Fay following Jo, and Jo's plays. */
export const seedJourneyFixtures: Seed = async (db) => {
  const hash = await hashPassword(E2E_PASSWORD);
  const createdAt = new Date(Date.now() - 30 * 86_400_000);
  for (const person of [JOURNEY_OWNER, JOURNEY_FOLLOWER, JOURNEY_STRANGER]) {
    await db.insert(user).values({
      id: person.id,
      name: person.displayName,
      email: person.email,
      emailVerified: true,
      username: person.username,
      createdAt,
    });
    await db.insert(account).values({
      id: `${person.id}-credential`,
      accountId: person.id,
      providerId: "credential",
      userId: person.id,
      password: hash,
      updatedAt: createdAt,
    });
    await db.insert(profiles).values({
      userId: person.id,
      email: person.email,
      displayName: person.displayName,
      username: person.username,
      createdAt,
    });
  }
  await db
    .insert(follows)
    .values({ followerId: JOURNEY_FOLLOWER.id, followeeId: JOURNEY_OWNER.id });
  // One play an hour, going back from two hours ago: all inside the last 30 days.
  const start = Date.now() - 2 * 3_600_000;
  let n = 0;
  const rows: (typeof listens.$inferInsert)[] = JOURNEY_PLAYS.flatMap((p) =>
    Array.from({ length: p.plays }, () => {
      n++;
      return {
        userId: JOURNEY_OWNER.id,
        listenedAt: new Date(Math.floor((start - n * 3_600_000) / 1000) * 1000),
        durationMs: 240_000,
        artistName: p.artist,
        trackName: p.track,
        releaseName: null,
        artistKey: artistKey(p.artist),
        trackKey: titleKey(p.track),
        releaseKey: null,
        source: "scrobble" as const,
      };
    }),
  );
  // Two earlier chapters: a month of Burial about 100 days ago, then of Low about 40 days ago
  // (different calendar months; both outside the last 30 days).
  for (const [artist, daysAgo] of [
    ["Burial", 100],
    ["Low", 40],
  ] as const) {
    for (let i = 0; i < 25; i++) {
      rows.push({
        userId: JOURNEY_OWNER.id,
        listenedAt: new Date(
          Math.floor((Date.now() - daysAgo * 86_400_000 - i * 600_000) / 1000) * 1000,
        ),
        durationMs: 240_000,
        artistName: artist,
        trackName: `${artist} track ${i}`,
        releaseName: null,
        artistKey: artistKey(artist),
        trackKey: titleKey(`${artist} track ${i}`),
        releaseKey: null,
        source: "scrobble" as const,
      });
    }
  }
  await db.insert(listens).values(rows);
};
