import { sql } from "drizzle-orm";
import { getDb } from "~/db/client.server";

export interface RateLimitRule {
  /** How many hits the window allows. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimitOutcome {
  isAllowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
  /** Hits counted in the current window, this one included. */
  count: number;
  /** Hits left in the current window (never below 0). */
  remaining: number;
}

/**
 * Counts one hit against `key` in a fixed window, atomically in one statement so several
 * instances share the budget. Returns whether the hit is within the limit.
 */
export async function hitRateLimit(key: string, rule: RateLimitRule): Promise<RateLimitOutcome> {
  const result = await getDb().execute(sql`
    insert into rate_limits (key, count, reset_at)
    values (${key}, 1, now() + make_interval(secs => ${rule.windowSeconds}))
    on conflict (key) do update set
      count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
      reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
    returning count, ceil(extract(epoch from (reset_at - now())))::int as retry_after`);
  const row = (result as unknown as { rows: { count: number; retry_after: number }[] }).rows[0];
  const count = Number(row?.count ?? 1);
  return {
    isAllowed: count <= rule.limit,
    retryAfterSeconds: Math.max(1, Number(row?.retry_after ?? rule.windowSeconds)),
    count,
    remaining: Math.max(0, rule.limit - count),
  };
}

/** Limits of the account flows: per client address, and per account across addresses. */
export const AUTH_LIMITS = {
  signInPerAddress: { limit: 10, windowSeconds: 60 },
  signInPerAccount: { limit: 20, windowSeconds: 15 * 60 },
  /** A device that signed in to the account before: a budget of its own (device cookie). */
  signInPerDevice: { limit: 10, windowSeconds: 15 * 60 },
  /** Password or code re-checks in Settings, per account. */
  reauthPerAccount: { limit: 10, windowSeconds: 15 * 60 },
  signUpPerAddress: { limit: 5, windowSeconds: 60 },
  confirmPerAddress: { limit: 10, windowSeconds: 60 },
  resendPerAddress: { limit: 3, windowSeconds: 5 * 60 },
  /** Sending a code or a link: per address and per recipient. */
  sendCodePerAddress: { limit: 5, windowSeconds: 5 * 60 },
  sendCodePerRecipient: { limit: 5, windowSeconds: 15 * 60 },
  /** Trying a code (on top of the five tries each code allows). */
  verifyCodePerAddress: { limit: 10, windowSeconds: 60 },
  guestPerAddress: { limit: 5, windowSeconds: 60 * 60 },
  /** Coming back from an OAuth provider (each carries a one-time state; a person needs few). */
  oauthCallbackPerAddress: { limit: 20, windowSeconds: 60 },
} satisfies Record<string, RateLimitRule>;

/** Hits every `[key, rule]` and returns the first refusal, if any. */
export async function checkRateLimits(
  checks: [string, RateLimitRule][],
): Promise<RateLimitOutcome | null> {
  for (const [key, rule] of checks) {
    const outcome = await hitRateLimit(key, rule);
    if (!outcome.isAllowed) return outcome;
  }
  return null;
}
