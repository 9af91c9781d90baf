import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { logger } from "~/core/logger.server";
import { getEnv } from "~/lib/env.server";

export interface SmsMessage {
  /** E.164 phone number, e.g. +4915112345678. */
  to: string;
  body: string;
}

/** Where text messages go; replaceable in tests. */
export type SmsSender = (message: SmsMessage) => Promise<void>;

/**
 * With SMS_WEBHOOK_URL set, a message is POSTed there as JSON `{ to, body }` (the shape most
 * SMS gateways and relays accept). Without it, messages are written as text files under
 * DATA_DIR/sms so a self-hoster can read their codes without any provider.
 */
function defaultSender(): SmsSender {
  const env = getEnv();
  if (env.SMS_WEBHOOK_URL) {
    const url = env.SMS_WEBHOOK_URL;
    return async (message) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new Error(`SMS gateway answered ${response.status}`);
    };
  }
  const dir = path.join(env.DATA_DIR, "sms");
  return async (message) => {
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `${Date.now()}-${message.to.replace(/\D/g, "")}.txt`);
    await writeFile(file, `To: ${message.to}\n\n${message.body}\n`, { mode: 0o600 });
    logger.info({ file }, "SMS written to a file (no SMS_WEBHOOK_URL configured)");
  };
}

let sender: SmsSender | undefined;

export function setSmsSender(next: SmsSender | undefined): void {
  sender = next;
}

export async function sendSms(message: SmsMessage): Promise<void> {
  sender ??= defaultSender();
  await sender(message);
}
