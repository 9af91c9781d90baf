import { randomBytes } from "node:crypto";
import { getDb } from "~/db/client.server";
import { profiles, user } from "~/db/schema";

export interface TestUserOptions {
  username?: string;
  displayName?: string | null;
  email?: string;
  isAdmin?: boolean;
  banned?: boolean;
}

export interface TestUser {
  id: string;
  username: string;
  displayName: string | null;
  email: string;
}

let counter = 0;

/**
 * Inserts a confirmed account and its profile straight into the database, for integration
 * tests that are about something other than signing up (no password hashing, no mail).
 */
export async function createTestUser(options: TestUserOptions = {}): Promise<TestUser> {
  counter++;
  const suffix = `${counter}${randomBytes(3).toString("hex")}`;
  const id = `test-user-${suffix}`;
  const username = options.username ?? `user_${suffix}`;
  const email = options.email ?? `${username.toLowerCase()}@example.test`;
  const displayName = options.displayName === undefined ? `User ${suffix}` : options.displayName;
  const db = getDb();
  await db.insert(user).values({
    id,
    name: displayName ?? "",
    email,
    emailVerified: true,
    username,
    banned: options.banned ?? false,
  });
  await db.insert(profiles).values({
    userId: id,
    email,
    displayName,
    username,
    roles: options.isAdmin ? ["admin"] : [],
  });
  return { id, username, displayName, email };
}
