import { type APIRequestContext, expect } from "@playwright/test";

/** The local SMTP sink's HTTP side (started by playwright.config.ts). */
export const SINK = `http://127.0.0.1:${process.env.SMTP_SINK_HTTP_PORT ?? 2526}`;

export interface SinkMail {
  to: string[];
  subject: string;
  raw: string;
}

/**
 * The newest mail the sink received for `address` (that `matching` accepts), waiting until
 * there is one. Pass `matching` whenever the address may already have an older mail: reset
 * links and sign-in codes are written after the answer, so right after the click the newest
 * mail can still be the confirmation one.
 */
export async function lastMailTo(
  request: APIRequestContext,
  address: string,
  matching: (mail: SinkMail) => boolean = () => true,
): Promise<SinkMail> {
  let found: SinkMail | undefined;
  await expect
    .poll(async () => {
      const all = (await (await request.get(`${SINK}/messages`)).json()) as SinkMail[];
      found = all.filter((m) => m.to.includes(address) && matching(m)).at(-1);
      return Boolean(found);
    })
    .toBe(true);
  return found as SinkMail;
}

/** The path and query of the first `<path>?token=…` link in a mail (quoted-printable undone). */
export function linkIn(mail: SinkMail, path: string): string {
  const unfolded = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = unfolded.match(new RegExp(`https?://[^\\s"<>]+${path}\\?token=[A-Za-z0-9._%-]+`));
  if (!match) throw new Error(`no ${path} link in the mail`);
  const url = new URL(match[0]);
  return `${url.pathname}${url.search}`;
}

/** The e-mail confirmation link last mailed to `address`. */
export async function confirmLinkFor(request: APIRequestContext, address: string): Promise<string> {
  return linkIn(await lastMailTo(request, address), "/auth/confirm");
}
