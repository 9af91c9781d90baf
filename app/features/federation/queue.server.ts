import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { defineJob, enqueueJob, enqueueJobs, exponentialBackoff } from "~/core/jobs/index.server";
import { getDb } from "~/db/client.server";

export const FEDERATION_QUEUE_KIND = "federation.queue";

type Handler = (message: unknown) => Promise<void> | void;

/** The handler Fedify registered in this process with `listen` (at boot), if any. */
let listening: Handler | null = null;

function delayMsOf(options?: MessageQueueEnqueueOptions): number | undefined {
  const ms = options?.delay ? options.delay.total("millisecond") : 0;
  return ms > 0 ? ms : undefined;
}

/**
 * Fedify's message queue on our job system (ADR 030): each message is a durable
 * `federation.queue` job in our database, claimed by any instance with `SKIP LOCKED`, so a
 * crash loses nothing and several instances never process one message twice. Fedify uses it
 * for the activities its inboxes accepted (verified at once, processed here).
 */
export class JobsMessageQueue implements MessageQueue {
  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await enqueueJob(getDb(), {
      kind: FEDERATION_QUEUE_KIND,
      payload: { message },
      delayMs: delayMsOf(options),
    });
  }

  async enqueueMany(messages: unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    await enqueueJobs(getDb(), {
      kind: FEDERATION_QUEUE_KIND,
      items: messages.map((message) => ({ payload: { message } })),
      delayMs: delayMsOf(options),
    });
  }

  /** Registers this process's handler; the job runner calls it for each message it claims. */
  listen(handler: Handler, options?: MessageQueueListenOptions): Promise<void> {
    listening = handler;
    return new Promise((resolve) => {
      const stop = () => {
        if (listening === handler) listening = null;
        resolve();
      };
      if (options?.signal?.aborted) stop();
      else options?.signal?.addEventListener("abort", stop, { once: true });
    });
  }
}

/** Runs one of Fedify's queued messages (an inbound activity) with the handler it registered. */
export const federationQueueJob = defineJob<{ message: Record<string, unknown> }>({
  kind: FEDERATION_QUEUE_KIND,
  concurrency: 2,
  maxAttempts: 5,
  backoffSeconds: exponentialBackoff(30, 6 * 3600),
  parse(payload) {
    const message = (payload as { message?: unknown } | null)?.message;
    return { message: (message ?? {}) as Record<string, unknown> };
  },
  async run(job) {
    if (!listening) throw new Error("federation is not running in this process (FEDERATION=off?)");
    await listening(job.payload.message);
    return undefined;
  },
});
