// Start-up recovery in the background: after a crash each namespace's index may hold chunks of
// documents that were never committed, and documents may be left half deleted ('deleting'). Neither is
// ever visible to search (search shows only committed, visible documents), so finishing that work is
// not a condition for serving: the process listens and reports ready first, and this reconciles one
// namespace at a time behind it. Its cost grows with the data (every namespace's document ids are read
// from the index), so it runs in bounded steps — one namespace at a time, the index read in batches —
// and a namespace that cannot be reconciled now (say, another node holds its writer lease) does not
// hold up the others: it is retried after them. /readyz reports the progress (docs/deployment.md).
import type { Logger } from 'pino';
import type { ControlPlane } from '../storage/db.ts';
import type { DocumentService } from './document-service.ts';

/** Where start-up recovery stands, as /readyz reports it. */
export interface RecoveryStatus {
  /**
   * pending: not started; running; done: every namespace reconciled; failed: some could not be, after
   * the retries (the next start tries again); stopped: the process is shutting down.
   */
  status: 'pending' | 'running' | 'done' | 'failed' | 'stopped';
  /** Active namespaces when recovery started. */
  namespaces: number;
  /** Namespaces reconciled so far. */
  reconciled: number;
  /** Documents whose chunks were removed (no committed document, no unfinished job). */
  orphans_removed: number;
  /** Interrupted deletes finished. */
  deletes_finished: number;
  /** Milliseconds from the start of recovery to its end (absent while it runs). */
  ms?: number;
}

/** Passes over the namespaces left after a failure, with this pause (ms) before each. */
const RETRY_PASSES = 3;
const RETRY_PAUSE_MS = 5000;

export class StartupRecovery {
  private state: RecoveryStatus = { status: 'pending', namespaces: 0, reconciled: 0, orphans_removed: 0, deletes_finished: 0 };
  private running?: Promise<RecoveryStatus>;
  private readonly stop = new AbortController();

  constructor(private readonly deps: { cp: ControlPlane; documents: DocumentService; logger: Logger; retryPauseMs?: number }) {}

  /** A copy of the current progress. */
  status(): RecoveryStatus {
    return { ...this.state };
  }

  /**
   * Start recovery once (later calls return the same run). Never rejects: a namespace that fails is
   * logged and retried; the run ends `failed` if some still fail after the retries.
   * @returns the final status
   */
  start(): Promise<RecoveryStatus> {
    this.running ??= this.run();
    return this.running;
  }

  /** Stop after the namespace in progress (shutdown) and wait for it. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  private async run(): Promise<RecoveryStatus> {
    const t0 = performance.now();
    const { logger } = this.deps;
    this.state.status = 'running'; // before the first await: /readyz never shows 'pending' once started
    let left: Array<{ id: string; namespace: string }> = [];
    try {
      left = await this.deps.cp.db.selectFrom('projects').select(['id', 'namespace']).where('status', '=', 'active').orderBy('id').execute();
    } catch (err) {
      logger.error({ err }, 'recovery could not list the projects');
      this.state = { ...this.state, status: 'failed', ms: Math.round(performance.now() - t0) };
      return this.status();
    }
    this.state.namespaces = left.length;
    for (let pass = 0; pass <= RETRY_PASSES && left.length && !this.stop.signal.aborted; pass++) {
      if (pass > 0) await this.pause(this.deps.retryPauseMs ?? RETRY_PAUSE_MS);
      const failed: typeof left = [];
      for (const p of left) {
        if (this.stop.signal.aborted) break;
        try {
          const r = await this.deps.documents.reconcile(p.id, p.namespace);
          this.state.reconciled++;
          this.state.orphans_removed += r.orphansRemoved;
          this.state.deletes_finished += r.deletesFinished;
          if (r.orphansRemoved || r.deletesFinished) logger.info({ namespace: p.namespace, ...r }, 'recovery reconciled a namespace');
        } catch (err) {
          failed.push(p);
          logger.warn({ err, namespace: p.namespace, pass }, 'recovery of a namespace failed; retrying after the others');
        }
        // Let requests and job steps run between namespaces.
        await new Promise((r) => setImmediate(r));
      }
      left = failed;
    }
    const ms = Math.round(performance.now() - t0);
    this.state = { ...this.state, status: this.stop.signal.aborted ? 'stopped' : left.length ? 'failed' : 'done', ms };
    logger.info(this.state, 'recovery finished');
    return this.status();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.stop.signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
    });
  }
}
