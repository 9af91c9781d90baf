import { describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { listens } from "~/db/schema";
import { getJourneySettings } from "~/features/journey/index.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as settingsPrivacyRoute from "~/routes/_app/settings-privacy";
import { contextFor, outcomeOf, viewerOf } from "../../../tests/support/admin-fixtures";
import { createTestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";

const { action: privacyAction, loader: privacyLoader } = atTheEdge(settingsPrivacyRoute);

withTestDatabase();

type Args<F extends (args: never) => unknown> = Parameters<F>[0];

function post(form: [string, string][]): Request {
  return new Request("http://localhost:3000/settings/privacy", {
    method: "POST",
    body: new URLSearchParams(form),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
}

async function act(person: Awaited<ReturnType<typeof createTestUser>>, form: [string, string][]) {
  return outcomeOf(() =>
    privacyAction({
      request: post(form),
      context: contextFor(viewerOf(person, false)),
      params: {},
    } as unknown as Args<typeof privacyAction>),
  );
}

describe("Settings › Privacy › Journey", () => {
  it("starts from the defaults and offers the person's own top artists to hide", async () => {
    const person = await createTestUser();
    await getDb()
      .insert(listens)
      .values(
        ["Slowdive", "Slowdive", "Low"].map((artist, i) => ({
          userId: person.id,
          listenedAt: new Date(Date.now() - (i + 1) * 3_600_000),
          artistName: artist,
          trackName: "Song",
          artistKey: artist.toLowerCase(),
          trackKey: "song",
          source: "scrobble" as const,
        })),
      );
    const data = (await privacyLoader({
      request: new Request("http://localhost:3000/settings/privacy"),
      context: contextFor(viewerOf(person, false)),
      params: {},
    } as unknown as Args<typeof privacyLoader>)) as unknown as { journey: Record<string, unknown> };
    expect(data.journey).toMatchObject({
      audience: "followers",
      hidden: [],
      nowPlayingPaused: false,
      recapsEnabled: true,
      suggestions: ["Slowdive", "Low"],
    });
  });

  it("saves the audience, a hidden artist by its key, now playing and recaps", async () => {
    const person = await createTestUser();
    const saved = await act(person, [
      ["intent", "journey"],
      ["journeyAudience", "only_me"],
      ["addArtist", "Beatles, The"],
      ["nowPlayingPaused", "on"],
    ]);
    expect(saved.status).toBe(302);
    expect(await getJourneySettings({ userId: person.id })).toEqual({
      audience: "only_me",
      hiddenArtists: ["the beatles"],
      nowPlayingPaused: true,
      recapsEnabled: false,
    });
    // Kept hidden artists come back as fields; a second one is added.
    await act(person, [
      ["intent", "journey"],
      ["journeyAudience", "everyone"],
      ["hiddenArtist", "the beatles"],
      ["addArtist", "Low"],
      ["recapsEnabled", "on"],
    ]);
    expect(await getJourneySettings({ userId: person.id })).toMatchObject({
      audience: "everyone",
      hiddenArtists: ["the beatles", "low"],
      recapsEnabled: true,
    });
    const unhidden = await act(person, [
      ["intent", "journey-unhide"],
      ["artistKey", "the beatles"],
    ]);
    expect(unhidden.status).toBe(302);
    expect(await getJourneySettings({ userId: person.id })).toMatchObject({
      audience: "everyone",
      hiddenArtists: ["low"],
    });
  });

  it("refuses an unknown audience and an overlong name with clear messages", async () => {
    const person = await createTestUser();
    const refused = await act(person, [
      ["intent", "journey"],
      ["journeyAudience", "the whole internet"],
      ["addArtist", "x".repeat(600)],
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      intent: "journey",
      fieldErrors: {
        journeyAudience: ["Choose who sees your journey."],
        addArtist: ["Artist names can be at most 512 characters."],
      },
    });
    const nothing = await act(person, [["intent", "journey-unhide"]]);
    expect(nothing.status).toBe(400);
    expect(await getJourneySettings({ userId: person.id })).toMatchObject({
      audience: "followers",
    });
  });
});
