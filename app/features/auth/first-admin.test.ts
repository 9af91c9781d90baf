import { describe, expect, it } from "vitest";
import { createTestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { verifyAdminAccess } from "./admin-role.server";
import {
  checkFirstAdminToken,
  claimFirstAdmin,
  prepareFirstAdminSetup,
} from "./first-admin.server";

withTestDatabase();

describe("the first administrator from the browser (one-time setup link)", () => {
  it("lets the holder of the newest link become admin once; then the link is gone", async () => {
    const first = await createTestUser();
    const second = await createTestUser();
    const guest = { id: second.id, isGuest: true };

    const old = await prepareFirstAdminSetup();
    const token = await prepareFirstAdminSetup();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(old).not.toBe(token);
    // Each start replaces the link: only the newest works.
    expect(await checkFirstAdminToken(old as string)).toBe("invalid");
    expect(await checkFirstAdminToken(token as string)).toBe("valid");
    expect(await checkFirstAdminToken("")).toBe("invalid");
    expect(await claimFirstAdmin({ userId: first.id, isGuest: false, token: old as string })).toBe(
      "invalid",
    );
    expect(await claimFirstAdmin({ userId: guest.id, isGuest: true, token: token as string })).toBe(
      "guest",
    );
    expect(await verifyAdminAccess(first.id)).toBe(false);

    // Two people press at once: exactly one becomes admin.
    const results = await Promise.all([
      claimFirstAdmin({ userId: first.id, isGuest: false, token: token as string }),
      claimFirstAdmin({ userId: second.id, isGuest: false, token: token as string }),
    ]);
    expect(results.filter((r) => r === "granted")).toHaveLength(1);
    expect(results.filter((r) => r === "taken")).toHaveLength(1);
    const admins = [await verifyAdminAccess(first.id), await verifyAdminAccess(second.id)];
    expect(admins.filter(Boolean)).toHaveLength(1);

    // From now on: no link at start, the old one says there is an admin.
    expect(await checkFirstAdminToken(token as string)).toBe("taken");
    expect(await prepareFirstAdminSetup()).toBeNull();
  });

  it("prints no link on an instance that already has an admin", async () => {
    await createTestUser({ isAdmin: true });
    expect(await prepareFirstAdminSetup()).toBeNull();
  });
});
