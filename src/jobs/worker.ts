// The worker loop: claims jobs from the durable queue and runs the handler registered for their kind.
// `step()` runs exactly one job (or returns false when none is runnable) so tests can drive the queue
// deterministically; `start()` runs `concurrency` loops until `stop()`.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { JobQueue, JobRow, JobOutcome } from './queue.ts';

/** One job kind: its queue name, retry policy and handler (one module per kind). */
export interface JobKind {
  kind: string;
  /**
   * Run the job. Return the terminal outcome, or throw: a thrown error with `retryable: true` is retried
   * with backoff while attempts remain; anything else fails the job with code 500.
   */
  handle(job: JobRow, signal: AbortSignal): Promise<JobOutcome & { docId?: string }>;
  /** Called after a terminal outcome was recorded (completion notifications, cleanup). */
  afterFinish?(job: JobRow, outcome: JobOutcome): Promise<void>;
}

export class RetryableError extends Error {
  readonly retryable = true;
}

export class Worker {
  readonly owner = `worker-${crypto.randomUUID()}`;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly inFlight = new Map<string, AbortController>();
  private readonly kinds = new Map<string, JobKind>();

  constructor(
    private readonly queue: JobQueue,
    kinds: JobKind[],
    private readonly opts: { leaseMs: number; pollMs: number; concurrency: number; logger: Logger },
  ) {
    for (const k of kinds) this.kinds.set(k.kind, k);
  }

  /** Claim and run one job. @returns true if a job ran, false if none was runnable. */
  async step(): Promise<boolean> {
    const job = await this.queue.claim(this.owner, this.opts.leaseMs, [...this.kinds.keys()]);
    if (!job) return false;
    await this.run(job);
    return true;
  }

  /** Run steps until the queue has nothing runnable (tests). */
  async drain(maxJobs = 10_000): Promise<number> {
    let n = 0;
    while (n < maxJobs && (await this.step())) n++;
    return n;
  }

  private async run(job: JobRow): Promise<void> {
    const kind = this.kinds.get(job.kind)!;
    const ac = new AbortController();
    this.inFlight.set(job.id, ac);
    const log = this.opts.logger.child({ job_id: job.id, kind: job.kind, attempt: job.attempts });
    const beat = setInterval(() => {
      void this.queue.heartbeat(job.id, this.owner, this.opts.leaseMs).catch(() => undefined);
    }, Math.max(1000, Math.floor(this.opts.leaseMs / 3)));
    try {
      log.info('job started');
      const outcome = await kind.handle(job, ac.signal);
      if (ac.signal.aborted) return; // shutting down: the lease is released, another start finishes it
      const recorded = await this.queue.finish(job.id, this.owner, outcome, { docId: outcome.docId });
      log.info({ status: outcome.status, code: outcome.code }, 'job finished');
      if (recorded && kind.afterFinish) await kind.afterFinish(job, outcome).catch((err) => log.error({ err }, 'afterFinish failed'));
    } catch (err) {
      if (ac.signal.aborted) return;
      const retryable = (err as { retryable?: boolean }).retryable === true;
      if (retryable && job.attempts < job.max_attempts) {
        log.warn({ err }, 'job failed, will retry');
        await this.queue.retryLater(job.id, this.owner, job.attempts, String((err as Error).message));
      } else {
        log.error({ err }, 'job failed');
        const outcome: JobOutcome = { status: 'failed', code: 500, errorCode: 'internal_error', errorMessage: 'Processing failed because of a server error; the job can be submitted again.' };
        const recorded = await this.queue.finish(job.id, this.owner, outcome);
        if (recorded && kind.afterFinish) await kind.afterFinish(job, outcome).catch(() => undefined);
      }
    } finally {
      clearInterval(beat);
      this.inFlight.delete(job.id);
    }
  }

  /** Start `concurrency` polling loops. */
  start(): void {
    if (this.running) return;
    this.running = true;
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop());
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let ran = false;
      try {
        ran = await this.step();
      } catch (err) {
        this.opts.logger.error({ err }, 'worker step failed');
      }
      if (!ran && this.running) await new Promise((r) => setTimeout(r, this.opts.pollMs));
    }
  }

  /** Stop polling, abort running handlers and release their jobs for the next start. */
  async stop(): Promise<void> {
    this.running = false;
    for (const ac of this.inFlight.values()) ac.abort();
    await this.queue.releaseAll(this.owner);
    await Promise.allSettled(this.loops);
    this.loops = [];
    await this.queue.releaseAll(this.owner);
  }
}
