import { createHmac, timingSafeEqual } from "node:crypto";
import { EMAIL_KINDS, type EmailKind } from "~/db/schema";
import { isNotificationKind, type NotificationKind } from "~/db/schema/enums";
import { getEnv, resolveAuthSecret } from "~/lib/env.server";

/**
 * What one unsubscribe link turns off: a kind of optional mail (announcements), or the e-mail
 * side of one kind of notification.
 */
export type UnsubscribeKind = EmailKind | NotificationKind;

function isUnsubscribeKind(value: string): value is UnsubscribeKind {
  return (EMAIL_KINDS as readonly string[]).includes(value) || isNotificationKind(value);
}

function mac(userId: string, kind: UnsubscribeKind): string {
  return createHmac("sha256", resolveAuthSecret(getEnv()))
    .update(`unsubscribe:${kind}:${userId}`)
    .digest("base64url");
}

/**
 * A token that lets whoever holds the mail turn off one kind of mail for its recipient without
 * signing in. It never expires (old mails keep working) and reveals nothing but the user id.
 */
export function createUnsubscribeToken(options: { userId: string; kind: UnsubscribeKind }): string {
  const id = Buffer.from(options.userId).toString("base64url");
  return `${id}.${options.kind}.${mac(options.userId, options.kind)}`;
}

/** The user and kind of a token made by `createUnsubscribeToken`, or null if it is not one. */
export function readUnsubscribeToken(
  token: string | null | undefined,
): { userId: string; kind: UnsubscribeKind } | null {
  if (!token || token.length > 600) return null;
  const [id, kind, given] = token.split(".");
  if (!id || !kind || !given || !isUnsubscribeKind(kind)) return null;
  const userId = Buffer.from(id, "base64url").toString();
  const expected = Buffer.from(mac(userId, kind));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  return { userId, kind };
}

/** The one-click unsubscribe link for a mail of `kind` to `userId`. */
export function unsubscribeUrl(options: { userId: string; kind: UnsubscribeKind }): string {
  const url = new URL("/unsubscribe", getEnv().BASE_URL);
  url.searchParams.set("token", createUnsubscribeToken(options));
  return url.toString();
}

/** Headers for a mail someone can unsubscribe from: RFC 2369 link and RFC 8058 one-click. */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return {
    "List-Unsubscribe": `<${url}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}
