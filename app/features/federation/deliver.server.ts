import { createHash } from "node:crypto";
import { Activity, type Context } from "@fedify/fedify";
import {
  defineJob,
  enqueueJobs,
  exponentialBackoff,
  PermanentJobError,
} from "~/core/jobs/index.server";
import type { DbOrTx } from "~/db/client.server";
import { assertSafeUrl, FetchRefused } from "~/features/unfurl/index.server";
import { getEnv } from "~/lib/env.server";
import { remoteFetchOptions } from "./documents.server";

export const DELIVER_KIND = "federation.deliver";

export interface DeliveryPayload extends Record<string, unknown> {
  /** The local sender's username (their keys sign the request). */
  sender: string;
  /** The inbox to POST to (a shared inbox when the server offers one). */
  inbox: string;
  /** The activity, compacted JSON-LD. */
  activity: Record<string, unknown>;
}

/**
 * Queues one delivery job per inbox (in `db`'s transaction when it is one). Keyed by activity
 * and inbox: the same activity is never queued twice for an inbox while one waits.
 */
export async function queueDeliveries(
  db: DbOrTx,
  ctx: Context<void>,
  options: { sender: string; inboxes: readonly string[]; activity: Activity },
): Promise<number> {
  const inboxes = [...new Set(options.inboxes)];
  if (inboxes.length === 0) return 0;
  const json = (await options.activity.toJsonLd({
    format: "compact",
    contextLoader: ctx.contextLoader,
  })) as Record<string, unknown>;
  const activityId = options.activity.id?.href ?? "";
  const ids = await enqueueJobs(db, {
    kind: DELIVER_KIND,
    items: inboxes.map((inbox) => ({
      payload: { sender: options.sender, inbox, activity: json } satisfies DeliveryPayload,
      key: createHash("sha256").update(`${activityId}\n${inbox}`).digest("hex"),
    })),
  });
  return ids.length;
}

/** Set by federation.server.ts (which imports this module): the context deliveries run in. */
let contextFactory: (() => Context<void>) | null = null;
export function setDeliveryContext(factory: () => Context<void>): void {
  contextFactory = factory;
}

/**
 * Delivers one activity to one inbox, signed by the sender (HTTP Signatures, draft-cavage as
 * Mastodon speaks, with an Ed25519 Object Integrity Proof and an RSA Linked Data signature by
 * Fedify). Retried with exponential back-off for about three days (14 attempts: 1 min … 12 h),
 * then dead — visible at /admin/jobs. The inbox must pass the SSRF fence; a refused address is
 * dead at once. A 4xx other than 408/429 is a permanent refusal by the other server.
 */
export const deliverJob = defineJob<DeliveryPayload>({
  kind: DELIVER_KIND,
  concurrency: 4,
  maxAttempts: 14,
  leaseSeconds: 60,
  backoffSeconds: exponentialBackoff(60, 12 * 3600),
  parse(payload) {
    const p = payload as Partial<DeliveryPayload> | null;
    if (
      typeof p?.sender !== "string" ||
      typeof p.inbox !== "string" ||
      typeof p.activity !== "object" ||
      !p.activity
    ) {
      throw new PermanentJobError("a delivery without sender, inbox or activity");
    }
    return { sender: p.sender, inbox: p.inbox, activity: p.activity };
  },
  async run(job) {
    if (!getEnv().FEDERATION) throw new PermanentJobError("federation is off (FEDERATION=off)");
    if (!contextFactory) throw new Error("federation is not set up in this process");
    const ctx = contextFactory();
    const inbox = new URL(job.payload.inbox);
    try {
      await assertSafeUrl(inbox, remoteFetchOptions(getEnv().FEDERATION_ALLOW_LOOPBACK));
    } catch (error) {
      if (error instanceof FetchRefused)
        throw new PermanentJobError(`refused inbox: ${error.message}`);
      throw error;
    }
    const activity = await Activity.fromJsonLd(job.payload.activity, {
      documentLoader: ctx.documentLoader,
      contextLoader: ctx.contextLoader,
    });
    try {
      await ctx.sendActivity(
        { identifier: job.payload.sender },
        // Fedify skips a recipient without an id; the inbox stands for whoever reads it.
        { id: inbox, inboxId: inbox },
        activity,
        { immediate: true },
      );
    } catch (error) {
      const status = /\((\d{3})(?: [^)]*)?\):/.exec(String((error as Error).message));
      const code = Number(status?.[1] ?? 0);
      if (code >= 400 && code < 500 && code !== 408 && code !== 429) {
        throw new PermanentJobError(`the inbox refused it: ${(error as Error).message}`);
      }
      throw error;
    }
    return undefined;
  },
});
