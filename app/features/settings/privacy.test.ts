import { and, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { isAppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { followRequests, follows, posts, profiles } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import {
  acceptFollowRequest,
  cancelFollowRequest,
  declineFollowRequest,
  followUser,
  listFollowRequests,
  REQUEST_NOT_FOUND,
  suggestPeople,
} from "~/features/follows/index.server";
import { listNotifications } from "~/features/notifications/index.server";
import { getProfile } from "~/features/people/index.server";
import { createPost, getPost, listFeed, postInputSchema } from "~/features/posts/index.server";
import { searchPeople } from "~/features/search/index.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as settingsPrivacyRoute from "~/routes/_app/settings-privacy";
import * as settingsProfileRoute from "~/routes/_app/settings-profile";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { FAVOURITE_MAX_LENGTH, FAVOURITES_MAX_COUNT } from "./constants";
import { getPrivacySettings, savePrivacySettings } from "./privacy.server";
import { getProfileSettings, updateProfile } from "./profile.server";

const { action: privacyAction, loader: privacyLoader } = atTheEdge(settingsPrivacyRoute);
const { action: profileAction } = atTheEdge(settingsProfileRoute);

withTestDatabase();

function contextFor(person: TestUser) {
  const context = new RouterContextProvider();
  context.set(viewerContext, {
    id: person.id,
    username: person.username,
    displayName: person.displayName ?? person.username,
    avatarUrl: null,
    isAdmin: false,
    isGuest: false,
  } as unknown as Viewer);
  return context;
}

type Args<F extends (args: never) => unknown> = Parameters<F>[0];
type Refusal = { data: { fieldErrors: Record<string, string[]> }; init: { status: number } };

function post(url: string, form: Record<string, string>): Request {
  return new Request(`http://localhost:3000${url}`, {
    method: "POST",
    body: new URLSearchParams(form),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
}

/** The toast a redirect carries (the flash cookie: base64url JSON, then its signature). */
function toastOf(response: Response): string {
  const value = /st_flash=([^.;]+)/.exec(response.headers.get("Set-Cookie") ?? "")?.[1] ?? "";
  return Buffer.from(value, "base64url").toString("utf8");
}

async function refusalOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isAppError(error), `expected an AppError, got ${String(error)}`).toBe(true);
  return isAppError(error) ? error : null;
}

async function approving(): Promise<TestUser> {
  const person = await createTestUser();
  await savePrivacySettings({
    userId: person.id,
    defaultAudience: "everyone",
    requiresFollowApproval: true,
    isDiscoverable: true,
  });
  return person;
}

async function kindsFor(userId: string) {
  const page = await listNotifications({ viewerId: userId });
  return page.notifications.map((n) => [n.kind, n.actors.map((a) => a.id)]);
}

async function isFollowing(followerId: string, followeeId: string) {
  const rows = await getDb()
    .select({ followerId: follows.followerId })
    .from(follows)
    .where(and(eq(follows.followerId, followerId), eq(follows.followeeId, followeeId)));
  return rows.length === 1;
}

describe("follow requests", () => {
  it("a declined request leaves no follow, hides followers-only posts and tells nobody", async () => {
    const ana = await approving();
    const ben = await createTestUser();
    const secret = await createTestPost(ana.id, {
      title: "Ana for followers",
      audience: "followers",
    });

    const state = await followUser({ viewerId: ben.id, targetId: ana.id });
    expect(state).toMatchObject({ following: false, requested: true, followerCount: 0 });
    // Asking twice keeps one request.
    expect(await followUser({ viewerId: ben.id, targetId: ana.id })).toMatchObject({
      requested: true,
    });
    expect(await getPost({ viewerId: ben.id, postId: secret })).toBeNull();
    expect(await kindsFor(ana.id)).toEqual([["follow_request", [ben.id]]]);
    const list = await listFollowRequests({ viewerId: ana.id });
    expect(list.requests.map((r) => r.id)).toEqual([ben.id]);
    expect(list.total).toBe(1);
    expect((await getProfile({ viewerId: ben.id, username: ana.username }))?.isRequested).toBe(
      true,
    );

    await declineFollowRequest({ viewerId: ana.id, requesterId: ben.id });
    expect((await listFollowRequests({ viewerId: ana.id })).total).toBe(0);
    expect(await kindsFor(ana.id)).toEqual([]);
    expect(await kindsFor(ben.id)).toEqual([]);
    expect(await getPost({ viewerId: ben.id, postId: secret })).toBeNull();
    const relation = await getProfile({ viewerId: ben.id, username: ana.username });
    expect(relation).toMatchObject({ isFollowed: false, isRequested: false, followerCount: 0 });

    // Nothing left to decline or accept.
    expect(
      (await refusalOf(declineFollowRequest({ viewerId: ana.id, requesterId: ben.id })))?.message,
    ).toBe(REQUEST_NOT_FOUND);
    expect(
      (await refusalOf(acceptFollowRequest({ viewerId: ana.id, requesterId: ben.id })))?.code,
    ).toBe("not_found");
  });

  it("an accepted request makes a follow: followers-only posts show, the requester hears of it", async () => {
    const cleo = await approving();
    const dan = await createTestUser();
    const secret = await createTestPost(cleo.id, {
      title: "Cleo for followers",
      audience: "followers",
    });
    await followUser({ viewerId: dan.id, targetId: cleo.id });
    expect(await getPost({ viewerId: dan.id, postId: secret })).toBeNull();

    // Only the person asked can accept: someone else accepting finds nothing.
    const eve = await createTestUser();
    expect(
      (await refusalOf(acceptFollowRequest({ viewerId: eve.id, requesterId: dan.id })))?.code,
    ).toBe("not_found");

    await acceptFollowRequest({ viewerId: cleo.id, requesterId: dan.id });
    expect((await getPost({ viewerId: dan.id, postId: secret }))?.title).toBe("Cleo for followers");
    const feed = await listFeed({ viewerId: dan.id, tab: "following", cursor: null });
    expect(feed.posts.map((p) => p.id)).toContain(secret);
    expect(await kindsFor(dan.id)).toEqual([["follow_accept", [cleo.id]]]);
    // The request is answered: it no longer waits in Cleo's notifications.
    expect(await kindsFor(cleo.id)).toEqual([]);
    expect(await isFollowing(dan.id, cleo.id)).toBe(true);
    expect(await followUser({ viewerId: dan.id, targetId: cleo.id })).toMatchObject({
      following: true,
      requested: false,
      followerCount: 1,
    });
  });

  it("the requester can cancel, and a block removes a waiting request either way", async () => {
    const fay = await approving();
    const gus = await createTestUser();
    const hal = await createTestUser();
    await followUser({ viewerId: gus.id, targetId: fay.id });
    expect(await cancelFollowRequest({ viewerId: gus.id, targetId: fay.id })).toMatchObject({
      requested: false,
    });
    expect((await listFollowRequests({ viewerId: fay.id })).total).toBe(0);
    expect(await kindsFor(fay.id)).toEqual([]);

    await followUser({ viewerId: gus.id, targetId: fay.id });
    await followUser({ viewerId: hal.id, targetId: fay.id });
    await blockUser({ viewerId: fay.id, targetId: gus.id });
    await blockUser({ viewerId: hal.id, targetId: fay.id });
    const left = await getDb()
      .select({ requesterId: followRequests.requesterId })
      .from(followRequests)
      .where(eq(followRequests.targetId, fay.id));
    expect(left).toEqual([]);
    expect(
      (await refusalOf(acceptFollowRequest({ viewerId: fay.id, requesterId: gus.id })))?.code,
    ).toBe("not_found");
  });

  it("turning approval off accepts the people who were waiting", async () => {
    const ivy = await approving();
    const jo = await createTestUser();
    await followUser({ viewerId: jo.id, targetId: ivy.id });
    const { accepted } = await savePrivacySettings({
      userId: ivy.id,
      defaultAudience: "everyone",
      requiresFollowApproval: false,
      isDiscoverable: true,
    });
    expect(accepted).toBe(1);
    expect(await isFollowing(jo.id, ivy.id)).toBe(true);
    const kim = await createTestUser();
    expect(await followUser({ viewerId: kim.id, targetId: ivy.id })).toMatchObject({
      following: true,
      requested: false,
    });
  });

  it("accept and decline from the privacy page answer with a toast; a stale one is refused, not a 500", async () => {
    const lou = await approving();
    const max = await createTestUser({ displayName: "Max M" });
    await followUser({ viewerId: max.id, targetId: lou.id });
    const page = await privacyLoader({
      request: new Request("http://localhost:3000/settings/privacy?requests=abc"),
      context: contextFor(lou),
      params: {},
    } as unknown as Args<typeof privacyLoader>);
    expect(page.requests.requests.map((r) => r.displayName)).toEqual(["Max M"]);

    const accepted = (await privacyAction({
      request: post("/settings/privacy", { intent: "accept", requesterId: max.id, name: "Max M" }),
      context: contextFor(lou),
      params: {},
    } as unknown as Args<typeof privacyAction>)) as unknown as Response;
    expect(accepted.status).toBe(302);
    expect(toastOf(accepted)).toContain("Max M follows you now");
    const again = (await privacyAction({
      request: post("/settings/privacy", { intent: "decline", requesterId: max.id }),
      context: contextFor(lou),
      params: {},
    } as unknown as Args<typeof privacyAction>)) as unknown as Response;
    expect(again.status).toBe(302);
    expect(toastOf(again)).toContain(REQUEST_NOT_FOUND);
  });
});

describe("appear in search and suggestions", () => {
  it("a hidden person is absent from others' people search and suggestions, but finds themself", async () => {
    const hidden = await createTestUser({ username: "zed_hidden", displayName: "Zed Hidden" });
    const seeker = await createTestUser();
    await createTestPost(hidden.id, { artist: "Stereolab", title: "French Disko" });
    await createTestPost(seeker.id, { artist: "Stereolab", title: "Cybele's Reverie" });

    expect(
      (await searchPeople({ viewerId: seeker.id, query: "zed_hidden" })).items.map((p) => p.id),
    ).toEqual([hidden.id]);
    expect((await suggestPeople({ viewerId: seeker.id })).map((p) => p.id)).toContain(hidden.id);

    await savePrivacySettings({
      userId: hidden.id,
      defaultAudience: "everyone",
      requiresFollowApproval: false,
      isDiscoverable: false,
    });
    expect((await searchPeople({ viewerId: seeker.id, query: "zed_hidden" })).items).toEqual([]);
    expect((await searchPeople({ viewerId: seeker.id, query: "Zed Hidden" })).items).toEqual([]);
    expect((await suggestPeople({ viewerId: seeker.id })).map((p) => p.id)).not.toContain(
      hidden.id,
    );
    expect(
      (await searchPeople({ viewerId: hidden.id, query: "zed_hidden" })).items.map((p) => p.id),
    ).toEqual([hidden.id]);
    // The profile itself still opens by its link.
    expect((await getProfile({ viewerId: seeker.id, username: "zed_hidden" }))?.id).toBe(hidden.id);
  });
});

describe("default audience", () => {
  it("applies to a new post that does not choose, and an invalid one is refused next to the field", async () => {
    const nia = await createTestUser();
    const oli = await createTestUser();
    expect((await getPrivacySettings({ userId: nia.id })).defaultAudience).toBe("everyone");

    const saved = (await privacyAction({
      request: post("/settings/privacy", {
        intent: "privacy",
        defaultAudience: "followers",
        requiresFollowApproval: "anyone",
        isDiscoverable: "on",
      }),
      context: contextFor(nia),
      params: {},
    } as unknown as Args<typeof privacyAction>)) as unknown as Response;
    expect(saved.status).toBe(302);
    expect(await getPrivacySettings({ userId: nia.id })).toEqual({
      defaultAudience: "followers",
      requiresFollowApproval: false,
      isDiscoverable: true,
    });

    const { id } = await createPost({
      viewerId: nia.id,
      input: postInputSchema.parse({ kind: "artist", title: "Can" }),
    });
    const [row] = await getDb()
      .select({ audience: posts.audience })
      .from(posts)
      .where(eq(posts.id, id));
    expect(row?.audience).toBe("followers");
    expect(await getPost({ viewerId: oli.id, postId: id })).toBeNull();
    // A post that chooses keeps its choice.
    const chosen = await createTestPost(nia.id, { audience: "everyone" });
    expect(await getPost({ viewerId: oli.id, postId: chosen })).not.toBeNull();

    const refused = (await privacyAction({
      request: post("/settings/privacy", {
        intent: "privacy",
        defaultAudience: "friends-of-friends",
        requiresFollowApproval: "sometimes",
      }),
      context: contextFor(nia),
      params: {},
    } as unknown as Args<typeof privacyAction>)) as unknown as Refusal & {
      data: { values: Record<string, string> };
    };
    expect(refused.init.status).toBe(400);
    expect(refused.data.fieldErrors.defaultAudience).toEqual(["Choose who sees your new posts."]);
    expect(refused.data.fieldErrors.requiresFollowApproval).toEqual(["Choose who may follow you."]);
    expect(refused.data.values.defaultAudience).toBe("friends-of-friends");
    expect((await getPrivacySettings({ userId: nia.id })).defaultAudience).toBe("followers");

    expect(
      (
        await refusalOf(
          savePrivacySettings({
            userId: nia.id,
            defaultAudience: "public" as "everyone",
            requiresFollowApproval: false,
            isDiscoverable: true,
          }),
        )
      )?.code,
    ).toBe("invalid");
  });
});

describe("favourite artists and genres", () => {
  it("are saved as plain text lists, shown on the profile, and bounded in count and length", async () => {
    const pia = await createTestUser();
    const saved = (await profileAction({
      request: post("/settings/profile", {
        intent: "profile",
        displayName: "Pia",
        username: pia.username,
        bio: "",
        favouriteArtists: " Björk ,Can,\ncan, <b>Air</b> ",
        favouriteGenres: "Krautrock, trip-hop",
      }),
      context: contextFor(pia),
      params: {},
    } as unknown as Args<typeof profileAction>)) as unknown as Response;
    expect(saved.status).toBe(302);
    const profile = await getProfile({ viewerId: null, username: pia.username });
    expect(profile?.favouriteArtists).toEqual(["Björk", "Can", "<b>Air</b>"]);
    expect(profile?.favouriteGenres).toEqual(["Krautrock", "trip-hop"]);

    const tooMany = Array.from({ length: FAVOURITES_MAX_COUNT + 1 }, (_, i) => `Band ${i}`);
    const refused = (await profileAction({
      request: post("/settings/profile", {
        intent: "profile",
        displayName: "Pia",
        username: pia.username,
        favouriteArtists: tooMany.join(", "),
        favouriteGenres: "x".repeat(FAVOURITE_MAX_LENGTH + 1),
      }),
      context: contextFor(pia),
      params: {},
    } as unknown as Args<typeof profileAction>)) as unknown as Refusal;
    expect(refused.init.status).toBe(400);
    expect(refused.data.fieldErrors.favouriteArtists).toEqual([
      `List at most ${FAVOURITES_MAX_COUNT} artists.`,
    ]);
    expect(refused.data.fieldErrors.favouriteGenres).toEqual([
      `Keep each of your genres under ${FAVOURITE_MAX_LENGTH} characters.`,
    ]);
    expect((await getProfileSettings({ userId: pia.id })).favouriteArtists).toEqual([
      "Björk",
      "Can",
      "<b>Air</b>",
    ]);

    // The server function checks the bounds too, whoever calls it.
    expect(
      (
        await refusalOf(
          updateProfile({
            userId: pia.id,
            displayName: "Pia",
            username: pia.username,
            bio: "",
            favouriteArtists: tooMany,
          }),
        )
      )?.code,
    ).toBe("invalid");
    const [row] = await getDb()
      .select({ artists: profiles.favouriteArtists })
      .from(profiles)
      .where(eq(profiles.userId, pia.id));
    expect(row?.artists).toHaveLength(3);
  });
});
