import { eq } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { getDb } from "~/db/client.server";
import { user } from "~/db/schema";
import { getSecurityOverview, isPlaceholderEmail } from "~/features/auth/index.server";

export interface AccountOverview {
  email: string | null;
  isEmailVerified: boolean;
  phoneNumber: string | null;
  isGuest: boolean;
  hasPassword: boolean;
  isTwoFactorOn: boolean;
}

/** What the account section shows: how the person is reached and how they prove it is them. */
export async function getAccountOverview(options: { userId: string }): Promise<AccountOverview> {
  const [[row], security] = await Promise.all([
    getDb()
      .select({
        email: user.email,
        emailVerified: user.emailVerified,
        phoneNumber: user.phoneNumber,
        isAnonymous: user.isAnonymous,
      })
      .from(user)
      .where(eq(user.id, options.userId)),
    getSecurityOverview(options.userId),
  ]);
  if (!row) throw new AppError("not_found", "Your account could not be found.");
  const isGuest = row.isAnonymous === true;
  return {
    // Guests and phone-only accounts carry a generated placeholder address, not theirs.
    email: isPlaceholderEmail(row.email) ? null : row.email,
    isEmailVerified: row.emailVerified,
    phoneNumber: row.phoneNumber,
    isGuest,
    hasPassword: security.hasPassword,
    isTwoFactorOn: security.isTwoFactorOn,
  };
}
