import { and, eq, lt, sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";
import { totpUsedCodes } from "~/db/schema";

/**
 * Claims a TOTP code for `userId`: true the first time, false when the same code was already
 * accepted within the last few periods (a replay). Atomic, so two racing requests cannot both win.
 */
export async function claimTotpCode(userId: string, code: string): Promise<boolean> {
  return getDb().transaction(async (tx) => {
    await tx
      .delete(totpUsedCodes)
      .where(
        and(
          eq(totpUsedCodes.userId, userId),
          lt(totpUsedCodes.usedAt, sql`now() - interval '3 minutes'`),
        ),
      );
    const inserted = await tx
      .insert(totpUsedCodes)
      .values({ userId, code: code.trim() })
      .onConflictDoNothing()
      .returning({ userId: totpUsedCodes.userId });
    return inserted.length > 0;
  });
}

/** Gives a claimed code back (it turned out to be wrong, so it was not a use). */
export async function releaseTotpCode(userId: string, code: string): Promise<void> {
  await getDb()
    .delete(totpUsedCodes)
    .where(and(eq(totpUsedCodes.userId, userId), eq(totpUsedCodes.code, code.trim())));
}
