import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { isAppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { media, profiles, session, user } from "~/db/schema";
import { blockUser } from "~/features/blocks/index.server";
import { addComment } from "~/features/comments/index.server";
import { likePost } from "~/features/likes/index.server";
import { NOT_AN_IMAGE } from "~/features/media/index.server";
import { setEmailPreference } from "~/features/notifications/index.server";
import { loadProfilePage } from "~/features/people/index.server";
import { type Viewer, viewerContext } from "~/lib/context.server";
import { atTheEdge } from "~/lib/route-errors.server";
import * as settingsAccountRoute from "~/routes/_app/settings-account";
import * as settingsDataExportRoute from "~/routes/_app/settings-data-export";
import * as settingsNotificationsRoute from "~/routes/_app/settings-notifications";
import * as settingsProfileRoute from "~/routes/_app/settings-profile";
import { createTestUser, type TestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { AVATAR_SIDE, USERNAME_RULES, USERNAME_TAKEN } from "./constants";
import { exportPersonData } from "./export.server";
import { getNotificationSettings, saveNotificationSettings } from "./notifications.server";
import { listBlockedPeople } from "./privacy.server";
import { checkUsername, removeAvatar, setAvatar, updateProfile } from "./profile.server";
import { listSessions, revokeOtherSessions, revokeSession } from "./sessions.server";

const { action: accountAction } = atTheEdge(settingsAccountRoute);
const { loader: exportLoader } = atTheEdge(settingsDataExportRoute);
const { action: notificationsAction } = atTheEdge(settingsNotificationsRoute);
const { action: profileAction, loader: profileLoader } = atTheEdge(settingsProfileRoute);

withTestDatabase();

function contextFor(person: TestUser | null) {
  const context = new RouterContextProvider();
  context.set(
    viewerContext,
    person
      ? ({
          id: person.id,
          username: person.username,
          displayName: person.displayName ?? person.username,
          avatarUrl: null,
          isAdmin: false,
          isGuest: false,
        } as unknown as Viewer)
      : null,
  );
  return context;
}

type Args<F extends (args: never) => unknown> = Parameters<F>[0];

function post(url: string, form: Record<string, string>): Request {
  return new Request(`http://localhost:3000${url}`, {
    method: "POST",
    body: new URLSearchParams(form),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
}

async function expectAppError(promise: Promise<unknown>, code: string, message?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isAppError(error), `expected AppError ${code}, got ${String(error)}`).toBe(true);
  if (isAppError(error)) {
    expect(error.code).toBe(code);
    if (message) expect(error.message).toBe(message);
  }
}

async function png(width: number, height: number): Promise<Uint8Array> {
  const buffer = await sharp({
    create: { width, height, channels: 3, background: { r: 20, g: 160, b: 80 } },
  })
    .withMetadata({ exif: { IFD0: { Copyright: "secret place" } } })
    .jpeg()
    .toBuffer();
  return new Uint8Array(buffer);
}

async function addSession(userId: string, userAgent: string) {
  const id = `s-${randomBytes(6).toString("hex")}`;
  await getDb()
    .insert(session)
    .values({
      id,
      token: `t-${id}`,
      userId,
      userAgent,
      ipAddress: "203.0.113.7",
      authMethod: "password",
      expiresAt: new Date(Date.now() + 86_400_000),
      createdAt: new Date(),
      updatedAt: new Date(),
    });
  return id;
}

describe("profile", () => {
  it("saves display name, username and bio, and the profile and posts show them at once", async () => {
    const ana = await createTestUser();
    await createTestPost(ana.id, { title: "Song for the settings test" });
    await updateProfile({
      userId: ana.id,
      displayName: "Ana Renamed",
      username: "ana_renamed",
      bio: "Synths\r\nand more ",
    });
    const page = await loadProfilePage({ viewerId: ana.id, username: "ana_renamed" });
    expect(page?.profile.displayName).toBe("Ana Renamed");
    expect(page?.profile.bio).toBe("Synths\nand more");
    expect(page?.page.posts[0]?.author).toMatchObject({
      username: "ana_renamed",
      displayName: "Ana Renamed",
    });
    const [account] = await getDb()
      .select({ name: user.name, username: user.username })
      .from(user)
      .where(eq(user.id, ana.id));
    expect(account).toEqual({ name: "Ana Renamed", username: "ana_renamed" });
  });

  it("refuses a username someone else has, whatever its case, and keeps your own in any case", async () => {
    const ben = await createTestUser({ username: "Ben_Taken" });
    const cleo = await createTestUser();
    expect(await checkUsername({ viewerId: cleo.id, username: "ben_taken" })).toEqual({
      isAvailable: false,
      reason: USERNAME_TAKEN,
    });
    expect(await checkUsername({ viewerId: cleo.id, username: "no spaces" })).toEqual({
      isAvailable: false,
      reason: USERNAME_RULES,
    });
    expect(await checkUsername({ viewerId: ben.id, username: "BEN_TAKEN" })).toEqual({
      isAvailable: true,
    });
    await expectAppError(
      updateProfile({ userId: cleo.id, displayName: "Cleo", username: "BEN_TAKEN", bio: "" }),
      "conflict",
      USERNAME_TAKEN,
    );
    const [row] = await getDb()
      .select({ username: profiles.username })
      .from(profiles)
      .where(eq(profiles.userId, cleo.id));
    expect(row?.username).toBe(cleo.username);
  });

  it("the route answers a taken username next to the field, keeping everything typed", async () => {
    const taken = await createTestUser({ username: "route_taken" });
    const dora = await createTestUser();
    const response = (await profileAction({
      request: post("/settings/profile", {
        intent: "profile",
        displayName: "Dora D",
        username: "Route_Taken",
        bio: "my bio",
      }),
      context: contextFor(dora),
      params: {},
    } as unknown as Args<typeof profileAction>)) as unknown as {
      data: { fieldErrors: Record<string, string[]>; values: Record<string, string> };
      init: { status: number };
    };
    expect(response.init.status).toBe(409);
    expect(response.data.fieldErrors.username).toEqual([USERNAME_TAKEN]);
    expect(response.data.values).toMatchObject({ displayName: "Dora D", bio: "my bio" });
    expect(taken.username).toBe("route_taken");

    const check = await profileLoader({
      request: new Request("http://localhost:3000/settings/profile?username=ROUTE_TAKEN"),
      context: contextFor(dora),
      params: {},
    } as unknown as Args<typeof profileLoader>);
    expect(check.usernameCheck).toEqual({ isAvailable: false, reason: USERNAME_TAKEN });
  });

  it("saves with a success toast, and a signed-out visitor is sent to sign in", async () => {
    const eve = await createTestUser();
    const saved = (await profileAction({
      request: post("/settings/profile", {
        intent: "profile",
        displayName: "Eve E",
        username: eve.username,
        bio: "",
      }),
      context: contextFor(eve),
      params: {},
    } as unknown as Args<typeof profileAction>)) as unknown as Response;
    expect(saved.status).toBe(302);
    expect(saved.headers.get("Location")).toBe("/settings/profile");
    expect(saved.headers.get("Set-Cookie")).toContain("st_flash=");

    const refused = await profileAction({
      request: post("/settings/profile", { intent: "profile", displayName: "X", username: "x_x" }),
      context: contextFor(null),
      params: {},
    } as unknown as Args<typeof profileAction>).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).headers.get("Location")).toMatch(/^\/auth\/login/);
  });

  it("stores a picture as a metadata-free centred square and replaces the old one", async () => {
    const fay = await createTestUser();
    const first = await setAvatar({ userId: fay.id, file: await png(900, 600) });
    const firstId = first.replace("/media/", "");
    const [stored] = await getDb()
      .select({ bytes: media.bytes, width: media.width, height: media.height })
      .from(media)
      .where(eq(media.id, firstId));
    expect(stored).toMatchObject({ width: AVATAR_SIDE, height: AVATAR_SIDE });
    const meta = await sharp(stored?.bytes).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();

    const second = await setAvatar({ userId: fay.id, file: await png(300, 300) });
    expect(second).not.toBe(first);
    expect(await getDb().select().from(media).where(eq(media.id, firstId))).toEqual([]);
    const [profile] = await getDb()
      .select({ avatarUrl: profiles.avatarUrl })
      .from(profiles)
      .where(eq(profiles.userId, fay.id));
    expect(profile?.avatarUrl).toBe(second);

    await removeAvatar({ userId: fay.id });
    const [after] = await getDb()
      .select({ avatarUrl: profiles.avatarUrl })
      .from(profiles)
      .where(eq(profiles.userId, fay.id));
    expect(after?.avatarUrl).toBeNull();
  });

  it("refuses a file that is not an image with a clear message", async () => {
    const gus = await createTestUser();
    await expectAppError(
      setAvatar({ userId: gus.id, file: new TextEncoder().encode("<html>not a picture</html>") }),
      "unsupported_media",
      NOT_AN_IMAGE,
    );
  });
});

describe("sessions", () => {
  it("lists only the person's sessions, marks this device, and ends one or all others", async () => {
    const hal = await createTestUser();
    const ivy = await createTestUser();
    const current = await addSession(
      hal.id,
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
    );
    const phone = await addSession(
      hal.id,
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    );
    const third = await addSession(hal.id, "curl/8.0");
    const ivys = await addSession(ivy.id, "Firefox");

    const sessions = await listSessions({ userId: hal.id, currentSessionId: current });
    expect(sessions.map((s) => s.id).sort()).toEqual([current, phone, third].sort());
    expect(sessions.find((s) => s.id === current)).toMatchObject({
      isCurrent: true,
      browser: "Chrome 130",
      system: "Linux",
      ipAddress: "203.0.113.7",
      method: "password",
    });
    expect(sessions.find((s) => s.id === phone)).toMatchObject({
      isCurrent: false,
      browser: "Safari 17",
      system: "iPhone",
    });

    // Someone else's session is not found, and stays.
    await expectAppError(
      revokeSession({ userId: hal.id, sessionId: ivys, currentSessionId: current }),
      "not_found",
    );
    await expectAppError(
      revokeSession({ userId: hal.id, sessionId: current, currentSessionId: current }),
      "invalid",
    );
    await revokeSession({ userId: hal.id, sessionId: phone, currentSessionId: current });
    expect((await listSessions({ userId: hal.id, currentSessionId: current })).length).toBe(2);

    expect(await revokeOtherSessions({ userId: hal.id, currentSessionId: current })).toBe(1);
    const left = await listSessions({ userId: hal.id, currentSessionId: current });
    expect(left.map((s) => s.id)).toEqual([current]);
    expect((await listSessions({ userId: ivy.id, currentSessionId: null })).length).toBe(1);
  });
});

describe("notification settings", () => {
  it("saves in-app and e-mail per kind; an unsubscribe link changes the same setting", async () => {
    const jo = await createTestUser();
    const before = await getNotificationSettings({ userId: jo.id });
    expect(before.kinds.find((k) => k.kind === "like")).toMatchObject({
      inApp: true,
      email: false,
    });
    expect(before.announcements).toBe(true);

    const response = (await notificationsAction({
      request: post("/settings/notifications", {
        "like.email": "on",
        "comment.inApp": "on",
        "reply.inApp": "on",
        "reply.email": "on",
        "mention.inApp": "on",
        "follow.inApp": "on",
        "follow.email": "on",
        "follow_request.inApp": "on",
      }),
      context: contextFor(jo),
      params: {},
    } as unknown as Args<typeof notificationsAction>)) as unknown as Response;
    expect(response.status).toBe(302);

    const after = await getNotificationSettings({ userId: jo.id });
    expect(Object.fromEntries(after.kinds.map((k) => [k.kind, [k.inApp, k.email]]))).toEqual({
      like: [false, true],
      comment: [true, false],
      reply: [true, true],
      mention: [true, false],
      follow: [true, true],
      follow_request: [true, false],
      follow_accept: [false, false],
      listen_import: [false, false],
    });
    expect(after.announcements).toBe(false);

    await setEmailPreference({ userId: jo.id, kind: "follow", isSubscribed: false });
    await setEmailPreference({ userId: jo.id, kind: "announcements", isSubscribed: true });
    const unsubscribed = await getNotificationSettings({ userId: jo.id });
    expect(unsubscribed.kinds.find((k) => k.kind === "follow")?.email).toBe(false);
    expect(unsubscribed.announcements).toBe(true);

    await saveNotificationSettings({
      userId: jo.id,
      kinds: {
        like: { inApp: true, email: false },
        comment: { inApp: true, email: true },
        reply: { inApp: true, email: true },
        mention: { inApp: true, email: true },
        follow: { inApp: true, email: true },
        follow_request: { inApp: true, email: true },
        follow_accept: { inApp: true, email: false },
        listen_import: { inApp: true, email: false },
      },
      announcements: true,
    });
    expect((await getNotificationSettings({ userId: jo.id })).kinds.every((k) => k.inApp)).toBe(
      true,
    );
  });
});

describe("privacy", () => {
  it("lists the people you blocked, and only yours", async () => {
    const kim = await createTestUser();
    const lou = await createTestUser({ displayName: null });
    const max = await createTestUser();
    await blockUser({ viewerId: kim.id, targetId: lou.id });
    await blockUser({ viewerId: max.id, targetId: kim.id });
    const blocked = await listBlockedPeople({ viewerId: kim.id });
    expect(blocked.map((p) => [p.id, p.displayName])).toEqual([[lou.id, lou.username]]);
  });
});

describe("data export", () => {
  it("holds exactly the person's own things and nothing of others' private posts", async () => {
    const nia = await createTestUser();
    const oli = await createTestUser();
    const publicPost = await createTestPost(nia.id, { title: "Nia public" });
    const privatePost = await createTestPost(nia.id, { title: "Nia private", audience: "only_me" });
    const olisPublic = await createTestPost(oli.id, { title: "Oli public" });
    const olisPrivate = await createTestPost(oli.id, {
      title: "Oli secret",
      note: "secret note",
      audience: "only_me",
    });
    await likePost({ viewerId: nia.id, postId: olisPublic });
    await addComment({ viewerId: nia.id, postId: olisPublic, content: "Nia's comment" });
    await addComment({ viewerId: oli.id, postId: publicPost, content: "Oli's comment" });

    const exported = await exportPersonData({ userId: nia.id });
    expect(exported.profile.username).toBe(nia.username);
    expect(exported.account.email).toBe(nia.email);
    expect(exported.posts.map((p) => p.id).sort()).toEqual([publicPost, privatePost].sort());
    expect(exported.comments.map((c) => c.content)).toEqual(["Nia's comment"]);
    expect(exported.likes).toEqual([{ postId: olisPublic, createdAt: expect.any(Date) }]);
    const text = JSON.stringify(exported);
    expect(text).not.toContain("Oli secret");
    expect(text).not.toContain("secret note");
    expect(text).not.toContain(olisPrivate);
    expect(text).not.toContain("Oli's comment");

    const response = (await exportLoader({
      request: new Request("http://localhost:3000/settings/data/export"),
      context: contextFor(nia),
      params: {},
    } as unknown as Args<typeof exportLoader>)) as Response;
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="/);
    const body = (await response.json()) as { posts: { title: string }[] };
    expect(body.posts.map((p) => p.title).sort()).toEqual(["Nia private", "Nia public"]);
  });
});

describe("account", () => {
  it("refuses to delete an account until the username is typed, before asking anything else", async () => {
    const pia = await createTestUser();
    const response = (await accountAction({
      request: post("/settings/account", { intent: "delete", confirmUsername: "someone_else" }),
      context: contextFor(pia),
      params: {},
    } as unknown as Args<typeof accountAction>)) as unknown as {
      data: { fieldErrors: Record<string, string[]> };
      init: { status: number };
    };
    expect(response.init.status).toBe(400);
    expect(response.data.fieldErrors.confirmUsername?.[0]).toContain(pia.username);
    expect(
      await getDb().select({ id: user.id }).from(user).where(eq(user.id, pia.id)),
    ).toHaveLength(1);
  });
});
