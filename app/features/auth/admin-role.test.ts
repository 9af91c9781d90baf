import { describe, expect, it } from "vitest";
import { type DatabaseHandle, setDatabase } from "~/db/client.server";
import { createTestUser } from "../../../tests/support/factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { setAdminRole, verifyAdminAccess } from "./admin-role.server";

const testDb = withTestDatabase();

describe("admin access", () => {
  it("reads the role from the database, following grants and revocations", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const member = await createTestUser();
    expect(await verifyAdminAccess(admin.id)).toBe(true);
    expect(await verifyAdminAccess(member.id)).toBe(false);
    expect(await setAdminRole({ email: member.email, isAdmin: true })).toBe("granted");
    expect(await verifyAdminAccess(member.id)).toBe(true);
    expect(await setAdminRole({ email: admin.email, isAdmin: false })).toBe("revoked");
    expect(await verifyAdminAccess(admin.id)).toBe(false);
    expect(await verifyAdminAccess("no-such-user")).toBe(false);
  });

  it("counts a failure to read the role as not admin", async () => {
    const admin = await createTestUser({ isAdmin: true });
    const broken = {
      ...testDb(),
      db: new Proxy(testDb().db, {
        get: () => () => {
          throw new Error("database unreachable");
        },
      }),
    } as DatabaseHandle;
    setDatabase(broken);
    try {
      expect(await verifyAdminAccess(admin.id)).toBe(false);
    } finally {
      setDatabase(testDb());
    }
    expect(await verifyAdminAccess(admin.id)).toBe(true);
  });
});
