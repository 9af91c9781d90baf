import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { DatabaseHandle } from "~/db/client.server";
import { type ChannelSubscription, listenOnChannel } from "~/db/listen.server";
import { databaseFailureKind, logOutageOr } from "~/db/unavailable.server";
import { logger } from "../logger.server";
import {
  type ActiveJob,
  type ClaimedRow,
  claimJobs,
  expireAllLeases,
  holdsLease,
  JOBS_CHANNEL,
  type JobDefinition,
  JobLeaseLost,
  nextDueAt,
  PermanentJobError,
  renewLeases,
  type Settlement,
  saveJobProgress,
  settleJob,
} from "./jobs.server";

/*
 * The loop that runs jobs (docs/decisions/030-job-system.md). One runner per process; each kind
 * has its own claim loop with its own concurrency, under one cap for the whole process (on
 * PGlite every job shares the one connection with every request). A loop sleeps until a
 * committed enqueue NOTIFYs its kind, its next job is due, or the slow poll comes round (the
 * safety net for a missed notification).
 */

// biome-ignore lint/suspicious/noExplicitAny: definitions of every payload type live in one list
type AnyDefinition = JobDefinition<any>;

export interface JobRunnerOptions {
  handle: DatabaseHandle;
  definitions: readonly AnyDefinition[];
  /** Jobs running at once in this process, all kinds together. */
  maxConcurrent?: number;
  /** The safety-net poll (default 30 s). */
  pollMs?: number;
  /**
   * How many requests wait for a turn right now (the server's admission queue). While some do,
   * runners claim nothing new and `yield()` waits, at most `yieldMaxMs` at a time.
   */
  waitingRequests?: () => number;
  yieldMaxMs?: number;
}

export interface JobRunnerStats {
  running: Record<string, number>;
}

interface Running {
  claim: ClaimedRow;
  definition: AnyDefinition;
  controller: AbortController;
  /** Why the controller was aborted, when it was. */
  reason: "stopping" | "lease-lost" | null;
  done: Promise<void>;
}

const workerId = () => `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;

export class JobRunner {
  readonly workerId = workerId();
  private readonly definitions = new Map<string, AnyDefinition>();
  private readonly running = new Map<number, Running>();
  private readonly loops = new Map<string, KindLoop>();
  private subscription: ChannelSubscription | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private started = false;
  private slotWaiters: { priority: number; resolve: () => void }[] = [];
  private slotsInUse = 0;
  private readonly maxConcurrent: number;

  constructor(private readonly options: JobRunnerOptions) {
    for (const definition of options.definitions) {
      if (this.definitions.has(definition.kind)) {
        throw new Error(`job kind ${definition.kind} defined twice`);
      }
      this.definitions.set(definition.kind, definition);
    }
    this.maxConcurrent = options.maxConcurrent ?? (options.handle.kind === "pglite" ? 2 : 4);
  }

  /** The definition of a kind this runner runs, if any. */
  definitionOf(kind: string): AnyDefinition | undefined {
    return this.definitions.get(kind);
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Jobs running in this process, by kind. */
  stats(): JobRunnerStats {
    const running: Record<string, number> = {};
    for (const { claim } of this.running.values()) {
      running[claim.kind] = (running[claim.kind] ?? 0) + 1;
    }
    return { running };
  }

  /** Starts claiming: listens for enqueues, then runs what is due now. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    const db = this.options.handle.db;
    if (this.options.handle.kind === "pglite") {
      const expired = await expireAllLeases(db);
      if (expired > 0)
        logger.warn({ jobs: expired }, "jobs cut off by the last stop taken up again");
    }
    this.subscription = await listenOnChannel(this.options.handle, JOBS_CHANNEL, {
      name: "job listener",
      onPayload: (kind) => {
        if (kind) this.wake(kind);
      },
      // Enqueues while the connection was down were not heard: look at every kind.
      onResubscribed: () => this.wakeAll(),
    });
    for (const definition of this.definitions.values()) {
      const loop = new KindLoop(this, definition, this.options.pollMs ?? 30_000);
      this.loops.set(definition.kind, loop);
      loop.wake();
    }
    const leaseMs = Math.min(...[...this.definitions.values()].map((d) => d.leaseSeconds)) * 1000;
    this.renewTimer = setInterval(() => this.renew(), Math.max(1000, leaseMs / 3));
    this.renewTimer.unref();
  }

  /** Runs the kind's loop now (a job of it was queued). Unknown kinds: another process's. */
  wake(kind: string): void {
    this.loops.get(kind)?.wake();
  }

  wakeAll(): void {
    for (const loop of this.loops.values()) loop.wake();
  }

  /**
   * Stops claiming, asks running jobs to stop at their next safe point (`signal`), and waits for
   * them at most `graceMs`; jobs stopped this way are queued again at once for the next start or
   * another instance. A job that does not stop in time keeps its lease until it runs out.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    for (const loop of this.loops.values()) loop.stop();
    // Waiters wake, see the runner stopping and give their slot back.
    for (const waiter of this.slotWaiters.splice(0)) {
      this.slotsInUse++;
      waiter.resolve();
    }
    for (const entry of this.running.values()) {
      entry.reason ??= "stopping";
      entry.controller.abort();
    }
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      all,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    await this.subscription?.close().catch(() => {});
    this.subscription = null;
    this.loops.clear();
    this.started = false;
  }

  /** Waits for a process-wide slot; waiters of a lower priority number go first. */
  async takeSlot(priority: number): Promise<void> {
    if (this.slotsInUse < this.maxConcurrent && this.slotWaiters.length === 0) {
      this.slotsInUse++;
      return;
    }
    await new Promise<void>((resolve) => {
      this.slotWaiters.push({ priority, resolve });
      this.slotWaiters.sort((a, b) => a.priority - b.priority);
    });
  }

  /** Gives a slot back: to the first waiter, or to the pool. */
  releaseSlot(): void {
    const next = this.slotWaiters.shift();
    if (next) next.resolve();
    else this.slotsInUse--;
  }

  /** Background work waits while requests wait (bounded), and always lets the event loop turn. */
  async yieldToRequests(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = this.options.waitingRequests;
    if (!waiting) return;
    const limit = performance.now() + (this.options.yieldMaxMs ?? 1000);
    while (waiting() > 0 && performance.now() < limit && !this.stopping) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /**
   * Claims one job of the definition's kind and starts it, with the slot the caller took (the job
   * gives it back when it ends); false when there was none.
   */
  async claimAndStart(definition: AnyDefinition): Promise<boolean> {
    const [claim] = this.stopping
      ? []
      : await claimJobs(this.options.handle.db, {
          kind: definition.kind,
          limit: 1,
          leaseSeconds: definition.leaseSeconds,
          workerId: this.workerId,
        });
    if (!claim) return false;
    void this.startJob(definition, claim);
    return true;
  }

  /**
   * Claims one specific job and runs it here and now (a mail sent during the request that
   * queued it); resolves when it settled. False when it was not claimable (already running
   * elsewhere, done, or not due).
   */
  async runNow(definition: AnyDefinition, id: number): Promise<boolean> {
    const [claim] = await claimJobs(this.options.handle.db, {
      kind: definition.kind,
      limit: 1,
      leaseSeconds: definition.leaseSeconds,
      workerId: this.workerId,
      ids: [id],
    });
    if (!claim) return false;
    // Run here whatever the cap: the caller (a request) waits for it anyway.
    this.slotsInUse++;
    await this.startJob(definition, claim);
    return true;
  }

  /**
   * Claims one due job of `definition` (among `keys` when given) and runs it here; resolves with
   * what was claimed once it settled, or null when none was due.
   */
  async runOneDue(
    definition: AnyDefinition,
    options: { keys?: readonly string[]; anyTime?: boolean } = {},
  ): Promise<ClaimedRow | null> {
    const [claim] = await claimJobs(this.options.handle.db, {
      kind: definition.kind,
      limit: 1,
      leaseSeconds: definition.leaseSeconds,
      workerId: this.workerId,
      keys: options.keys,
      anyTime: options.anyTime,
    });
    if (!claim) return null;
    this.slotsInUse++;
    await this.startJob(definition, claim);
    return claim;
  }

  /**
   * Runs due jobs of the given kinds (all kinds by default) here, one at a time, until none is
   * due — without starting the loops (tests, scripts). Returns how many ran.
   */
  async drain(kinds?: readonly string[]): Promise<number> {
    let ran = 0;
    for (;;) {
      let any = false;
      for (const definition of this.definitions.values()) {
        if (kinds && !kinds.includes(definition.kind)) continue;
        const [claim] = await claimJobs(this.options.handle.db, {
          kind: definition.kind,
          limit: 1,
          leaseSeconds: definition.leaseSeconds,
          workerId: this.workerId,
        });
        if (!claim) continue;
        this.slotsInUse++;
        await this.startJob(definition, claim);
        any = true;
        ran++;
      }
      if (!any) return ran;
    }
  }

  runningOf(kind: string): number {
    let n = 0;
    for (const { claim } of this.running.values()) if (claim.kind === kind) n++;
    return n;
  }

  nextDueAt(kind: string): Promise<Date | null> {
    return nextDueAt(this.options.handle.db, kind);
  }

  private startJob(definition: AnyDefinition, claim: ClaimedRow): Promise<void> {
    const controller = new AbortController();
    const entry: Running = {
      claim,
      definition,
      controller,
      reason: null,
      done: Promise.resolve(),
    };
    entry.done = this.execute(entry).finally(() => {
      this.running.delete(claim.id);
      this.releaseSlot();
      this.loops.get(claim.kind)?.wake();
    });
    this.running.set(claim.id, entry);
    return entry.done;
  }

  private async execute(entry: Running): Promise<void> {
    const { claim, definition, controller } = entry;
    const db = this.options.handle.db;
    const started = performance.now();
    const lease = {
      id: claim.id,
      leaseToken: claim.leaseToken,
      leaseSeconds: definition.leaseSeconds,
    };
    const lost = () => {
      entry.reason ??= "lease-lost";
      controller.abort();
      return new JobLeaseLost(claim.id);
    };
    let settlement: Settlement;
    try {
      const job: ActiveJob<unknown> = {
        id: claim.id,
        kind: claim.kind,
        payload: definition.parse(claim.payload),
        key: claim.key,
        attempt: claim.attempts,
        progress: claim.progress,
        signal: controller.signal,
        fence: async (tx) => {
          if (!(await holdsLease(tx, lease))) throw lost();
        },
        saveProgress: async (progress, tx) => {
          if (!(await saveJobProgress(tx ?? db, lease, progress))) throw lost();
          claim.progress = progress;
        },
        yield: () => this.yieldToRequests(),
      };
      const result = await definition.run(job);
      settlement = result?.again
        ? { kind: "again", delayMs: result.again.delayMs ?? 0, progress: result.again.progress }
        : { kind: "done" };
      if (entry.reason === "lease-lost") return;
    } catch (error) {
      if (error instanceof JobLeaseLost || entry.reason === "lease-lost") {
        logger.warn({ jobId: claim.id, kind: claim.kind }, "job lease lost; another runner has it");
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (entry.reason === "stopping") {
        settlement = { kind: "released" };
      } else if (error instanceof PermanentJobError || claim.attempts >= claim.maxAttempts) {
        settlement = { kind: "dead", error: message };
      } else if (databaseFailureKind(error)) {
        // The database is away: not the job's fault; try again soon, quietly.
        settlement = { kind: "retry", delaySeconds: 10, error: message };
      } else {
        settlement = {
          kind: "retry",
          delaySeconds: definition.backoffSeconds(claim.attempts),
          error: message,
        };
      }
      const log = () =>
        (settlement.kind === "dead" ? logger.error : logger.warn).call(
          logger,
          {
            err: error,
            jobId: claim.id,
            kind: claim.kind,
            attempt: claim.attempts,
            settlement: settlement.kind,
          },
          settlement.kind === "dead" ? "job failed for good" : "job failed; it will run again",
        );
      if (settlement.kind === "released") {
        logger.info({ jobId: claim.id, kind: claim.kind }, "job stopped for shutdown");
      } else {
        logOutageOr(`job ${claim.kind}`, error, log);
      }
    }
    try {
      const settled = await settleJob(db, claim, settlement, performance.now() - started);
      if (settled && settlement.kind === "dead" && definition.onDead) {
        await definition.onDead(definition.parse(claim.payload), settlement.error);
      }
    } catch (error) {
      // The lease runs out and the job is taken up again: nothing is lost.
      logOutageOr(`job ${claim.kind}`, error, () =>
        logger.error({ err: error, jobId: claim.id }, "could not settle a job"),
      );
    }
  }

  private async renew(): Promise<void> {
    const claims = [...this.running.values()].map((r) => ({
      id: r.claim.id,
      leaseToken: r.claim.leaseToken,
      leaseSeconds: r.definition.leaseSeconds,
    }));
    if (claims.length === 0) return;
    try {
      const held = await renewLeases(this.options.handle.db, claims);
      for (const entry of this.running.values()) {
        if (!held.has(entry.claim.id) && this.running.has(entry.claim.id)) {
          entry.reason ??= "lease-lost";
          entry.controller.abort();
        }
      }
    } catch (error) {
      logOutageOr("job leases", error, () =>
        logger.warn({ err: error }, "could not renew job leases"),
      );
    }
  }
}

/** One kind's claim loop: claims while it has room, then sleeps until woken or due. */
class KindLoop {
  private timer: NodeJS.Timeout | null = null;
  private active: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly runner: JobRunner,
    private readonly definition: AnyDefinition,
    private readonly pollMs: number,
  ) {}

  wake(): void {
    if (this.stopped) return;
    if (this.active) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.active = this.round()
      .catch((error: unknown) =>
        logOutageOr(`job ${this.definition.kind}`, error, () =>
          logger.error({ err: error, kind: this.definition.kind }, "job loop failed"),
        ),
      )
      .finally(() => {
        this.active = null;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          void this.sleep();
        }
      });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async round(): Promise<void> {
    const { definition, runner } = this;
    for (;;) {
      if (runner.isStopping || this.stopped) return;
      if (definition.concurrency - runner.runningOf(definition.kind) <= 0) return;
      await runner.takeSlot(definition.priority);
      let started = false;
      try {
        if (runner.isStopping || this.stopped) return;
        await runner.yieldToRequests();
        started = await runner.claimAndStart(definition);
      } finally {
        if (!started) runner.releaseSlot();
      }
      if (!started) return;
    }
  }

  /**
   * Sleeps until the next job is due, at most one poll. A job that is due but was not claimed
   * waits for a same-key job that runs elsewhere (or for a free slot, and an ending job wakes the
   * loop): look again in a second.
   */
  private async sleep(): Promise<void> {
    let delay = this.pollMs;
    try {
      const next = await this.runner.nextDueAt(this.definition.kind);
      const ms = next ? next.getTime() - Date.now() : null;
      if (ms !== null) delay = Math.min(delay, ms > 0 ? ms + 5 : 1000);
    } catch (error) {
      logOutageOr(`job ${this.definition.kind}`, error, () =>
        logger.warn({ err: error }, "could not read when the next job is due"),
      );
    }
    if (this.stopped || this.active) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }
}
