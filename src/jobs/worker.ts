// The worker loop: claims jobs from the durable queue and runs the handler registered for their kind.
// At most `concurrency` jobs of one project run at once in one Worker, plus `fairSlots` more slots that
// only other projects may take: one project's flood of heavy documents (zip bombs, huge files) can never
// take every slot, so another project's small document starts at once (docs/admission.md).
// Claims are serialised within the Worker so the per-project count is exact here. A running
// job's lease is renewed by heartbeats; when a heartbeat finds the job no longer ours (cancelled, or the
// lease was lost), the handler is aborted and — if the job ended failed — its partial data is removed.
// `step()` runs exactly one job (or returns false when none is runnable) so tests can drive the queue
// deterministically; `start()` runs the loops until `stop()`.
import type { Logger } from 'pino';
import { JobLostError, leaseOwnerId, type Db, type JobQueue, type JobRow, type JobOutcome } from './queue.ts';
import { RetryableError } from '../internal/errors.ts';
import type { JobProgress } from './job-view.ts';

/** What a handler gets besides its job and abort signal. */
export interface JobContext {
  owner: string;
  /**
   * Mark the job done and run `work` in the same transaction (e.g. insert the document row).
   * @throws JobLostError when the job is no longer held (cancelled meanwhile); nothing is written then
   */
  commitDone(docId: string | undefined, work: (trx: Db) => Promise<void>): Promise<void>;
  /**
   * Record how far the attempt has come (JobProgress of job-view.ts). A change of stage is written at
   * once, a count within a stage at most every PROGRESS_INTERVAL_MS; never throws (progress is advisory).
   */
  progress?(p: JobProgress): void;
}

/** Least time between two progress writes of one job within a stage, ms. */
export const PROGRESS_INTERVAL_MS = 250;

/** One job kind: its queue name, retry policy and handler (one module per kind). */
export interface JobKind {
  kind: string;
  /**
   * Run the job. Return the terminal outcome, or throw: a thrown error with `retryable: true` is retried
   * with backoff while attempts remain; anything else fails the job with code 500.
   */
  handle(job: JobRow, signal: AbortSignal, ctx: JobContext): Promise<JobOutcome & { docId?: string }>;
  /** Called after a terminal outcome was recorded by this worker (not transactional; best effort). */
  afterFinish?(job: JobRow, outcome: JobOutcome): Promise<void>;
  /** Remove whatever a failed or cancelled job left behind. Idempotent; also run by the durable cleanup job. */
  cleanup?(job: JobRow): Promise<void>;
  /** Delay before retry number `attempt` (1-based attempt that just failed), ms. */
  retryDelayMs?(attempt: number): number;
}

export { RetryableError };

/** Default backoff: 1 s · 2^(attempt-1), capped at 5 min. */
export function defaultRetryDelayMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt - 1), 5 * 60_000);
}

interface InFlight { ac: AbortController; done: Promise<void>; settle: () => void; projectId: string }

/** Options of a Worker. */
export interface WorkerOptions {
  leaseMs: number;
  pollMs: number;
  /** Jobs one project may run at once in this worker (and the slots when fairSlots is 0). */
  concurrency: number;
  /** Extra slots a project already running `concurrency` jobs here cannot take. Default 0. */
  fairSlots?: number;
  logger: Logger;
}

export class Worker {
  readonly owner = leaseOwnerId();
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  private readonly kinds = new Map<string, JobKind>();
  private readonly waiters = new Set<() => void>();
  private lastSweep = 0;
  private claiming: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly queue: JobQueue,
    kinds: JobKind[],
    private readonly opts: WorkerOptions,
  ) {
    for (const k of kinds) this.kinds.set(k.kind, k);
  }

  get kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  /** Number of jobs running in this worker now. */
  get active(): number {
    return this.inFlight.size;
  }

  /** Slots of this worker: concurrency + fairSlots. */
  get slots(): number {
    return this.opts.concurrency + (this.opts.fairSlots ?? 0);
  }

  /** Claim and run one job. @returns true if a job ran, false if none was runnable. */
  async step(): Promise<boolean> {
    await this.sweep();
    const job = await this.claimNext();
    if (!job) return false;
    await this.run(job);
    return true;
  }

  /**
   * Claim one job, skipping projects that already run `concurrency` jobs in this worker. Claims are
   * chained so two loops cannot both see a project below its cap; the claimed job is registered as in
   * flight before the next claim starts.
   */
  private claimNext(): Promise<JobRow | undefined> {
    const next = this.claiming.then(async () => {
      const perProject = new Map<string, number>();
      for (const f of this.inFlight.values()) perProject.set(f.projectId, (perProject.get(f.projectId) ?? 0) + 1);
      const full = [...perProject].filter(([, n]) => n >= this.opts.concurrency).map(([p]) => p);
      const job = await this.queue.claim(this.owner, this.opts.leaseMs, this.kindNames, full);
      if (job) this.register(job);
      return job;
    });
    this.claiming = next.catch(() => undefined);
    return next;
  }

  private register(job: JobRow): InFlight {
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const entry: InFlight = { ac: new AbortController(), done, settle, projectId: job.project_id };
    this.inFlight.set(job.id, entry);
    return entry;
  }

  /** Run steps until the queue has nothing runnable (tests). */
  async drain(maxJobs = 10_000): Promise<number> {
    let n = 0;
    while (n < maxJobs && (await this.step())) n++;
    return n;
  }

  /** Housekeeping at most once a second: expire leases of dead local workers, fail exhausted jobs. */
  private async sweep(): Promise<void> {
    if (Date.now() - this.lastSweep < 1000) return;
    this.lastSweep = Date.now();
    const expired = await this.queue.expireDeadOwners();
    if (expired) this.opts.logger.warn({ expired }, 'expired the leases of jobs held by a dead worker process');
    await this.queue.failExhausted();
  }

  /**
   * Abort a job running in this worker and wait (up to `timeoutMs`) for its handler to settle.
   * @returns true when the job was running here
   */
  async abort(jobId: string, timeoutMs = 10_000): Promise<boolean> {
    const f = this.inFlight.get(jobId);
    if (!f) return false;
    f.ac.abort(new Error('cancelled'));
    await Promise.race([f.done, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    return true;
  }

  private async run(job: JobRow): Promise<void> {
    const entry = this.inFlight.get(job.id) ?? this.register(job);
    try {
      await this.execute(job, entry.ac);
    } finally {
      this.inFlight.delete(job.id);
      entry.settle();
    }
  }

  private async execute(job: JobRow, ac: AbortController): Promise<void> {
    const kind = this.kinds.get(job.kind)!;
    const log = this.opts.logger.child({ job_id: job.id, kind: job.kind, attempt: job.attempts });
    let committed = false;
    const ctx: JobContext = {
      owner: this.owner,
      commitDone: async (docId, work) => {
        await this.queue.commitDone(job.id, this.owner, docId, work);
        committed = true;
      },
      progress: (p) => {
        const now = Date.now();
        if (p.stage === lastStage && now - lastProgressAt < PROGRESS_INTERVAL_MS) return;
        lastStage = p.stage;
        lastProgressAt = now;
        // Written in order: each write waits for the one before, so a stale count never lands last.
        progressWrites = progressWrites.then(() => this.queue.setProgress(job.id, this.owner, JSON.stringify(p)))
          .then(() => undefined, (err) => log.debug({ err }, 'progress not recorded'));
      },
    };
    let lastStage: string | undefined;
    let lastProgressAt = 0;
    let progressWrites: Promise<void> = Promise.resolve();
    const beatMs = Math.min(2000, Math.max(100, Math.floor(this.opts.leaseMs / 3)));
    const beat = setInterval(() => {
      void this.queue.heartbeat(job.id, this.owner, this.opts.leaseMs).then((ours) => {
        if (!ours && !ac.signal.aborted) ac.abort(new Error('job no longer held'));
      }).catch(() => undefined);
    }, beatMs);
    try {
      log.debug('job started');
      const outcome = await kind.handle(job, ac.signal, ctx);
      if (committed) {
        log.info({ status: 'done', code: 200 }, 'job finished');
        if (kind.afterFinish) await kind.afterFinish(job, { status: 'done', code: 200 }).catch((err) => log.error({ err }, 'afterFinish failed'));
        return;
      }
      if (ac.signal.aborted) return await this.afterAbort(job, kind, log);
      const recorded = await this.queue.finish(job.id, this.owner, outcome, { docId: outcome.docId });
      if (!recorded) return await this.afterAbort(job, kind, log);
      log.info({ status: outcome.status, code: outcome.code }, 'job finished');
      if (outcome.status === 'failed' && kind.cleanup) await kind.cleanup(job).catch((err) => log.warn({ err }, 'cleanup failed'));
      if (kind.afterFinish) await kind.afterFinish(job, outcome).catch((err) => log.error({ err }, 'afterFinish failed'));
    } catch (err) {
      if (committed) return;
      if (ac.signal.aborted || err instanceof JobLostError) return await this.afterAbort(job, kind, log);
      const retryable = (err as { retryable?: boolean }).retryable === true;
      if (retryable && job.attempts < job.max_attempts) {
        const delay = kind.retryDelayMs?.(job.attempts) ?? defaultRetryDelayMs(job.attempts);
        log.warn({ err, delay_ms: delay }, 'job attempt failed, will retry');
        await this.queue.retryLater(job.id, this.owner, String((err as Error).message), delay);
      } else {
        log.error({ err }, 'job failed');
        const outcome: JobOutcome = retryable
          ? { status: 'failed', code: 502, errorCode: 'retries_exhausted', errorMessage: `Gave up after ${job.attempts} attempts; the last one failed with: ${String((err as Error).message).slice(0, 500)}` }
          : { status: 'failed', code: 500, errorCode: 'internal_error', errorMessage: 'Processing failed because of a server error; the job can be submitted again.' };
        const recorded = await this.queue.finish(job.id, this.owner, outcome);
        if (!recorded) return await this.afterAbort(job, kind, log);
        if (kind.cleanup) await kind.cleanup(job).catch((e) => log.warn({ err: e }, 'cleanup failed'));
        if (kind.afterFinish) await kind.afterFinish(job, outcome).catch(() => undefined);
      }
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * The handler stopped without this worker recording an outcome: shutting down (stop() releases the
   * job), cancelled (clean up what the attempt wrote), or the lease went to another worker (leave it).
   */
  private async afterAbort(job: JobRow, kind: JobKind, log: Logger): Promise<void> {
    if (!this.running && this.loops.length > 0) return;
    const now = await this.queue.get(job.id);
    if (!now || now.status === 'failed') {
      log.info({ status: now?.status ?? 'deleted', error_code: now?.error_code }, 'job stopped; removing its partial data');
      if (kind.cleanup) await kind.cleanup(job).catch((err) => log.warn({ err }, 'cleanup failed'));
    } else {
      log.warn({ status: now.status }, 'job is no longer held by this worker; leaving it');
    }
  }

  /** Start one polling loop per slot; an enqueue in this process wakes idle loops at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.queue.events.on('enqueued', this.onEnqueued);
    for (let i = 0; i < this.slots; i++) this.loops.push(this.loop());
  }

  private readonly onEnqueued = (kind: string): void => {
    if (this.kinds.has(kind)) for (const w of [...this.waiters]) w();
  };

  private async loop(): Promise<void> {
    while (this.running) {
      let ran = false;
      try {
        ran = await this.step();
      } catch (err) {
        this.opts.logger.error({ err }, 'worker step failed');
      }
      if (!ran && this.running) {
        await new Promise<void>((resolve) => {
          const done = (): void => { clearTimeout(t); this.waiters.delete(done); resolve(); };
          const t = setTimeout(done, this.opts.pollMs);
          this.waiters.add(done);
        });
      }
    }
  }

  /** Stop polling, abort running handlers and release their jobs for the next start. */
  async stop(): Promise<void> {
    if (!this.running) {
      // Never started (or already stopped): jobs claimed through step() are still released.
      await this.queue.releaseAll(this.owner);
      return;
    }
    this.running = false;
    this.queue.events.off('enqueued', this.onEnqueued);
    for (const w of [...this.waiters]) w();
    for (const f of this.inFlight.values()) f.ac.abort(new Error('shutting down'));
    await this.queue.releaseAll(this.owner);
    await Promise.allSettled(this.loops);
    await this.queue.releaseAll(this.owner);
    this.loops = [];
  }
}
