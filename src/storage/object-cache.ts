// The index read cache as the rest of the service sees it: start() runs the caching S3 endpoint
// (object-cache-proxy.ts) in a worker thread (object-cache-thread.ts) and hands LanceDB the storage
// options that point at it; close() stops it. LanceDB keeps those options for the life of its connection,
// so a thread that dies is started again on the same port with the same token: without it every read of
// the index would fail until the process restarted. docs/deployment.md "Index read cache" explains the sizing.
import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { ObjectCacheOptions } from './object-cache-proxy.ts';

/** Hits and misses of the cache by tier since start, and how often its thread was started again. */
export interface ObjectCacheStats {
  memoryHits: number;
  diskHits: number;
  misses: number;
  restarts: number;
}

/** Delay before starting a dead thread again, doubled after each failed attempt, and after each thread
 *  that ends within RESTART_STABLE_MS of its start (a crash loop), up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 10_000;
const RESTART_STABLE_MS = 30_000;

type Ready = { origin: string; token: string };
type Counts = Omit<ObjectCacheStats, 'restarts'>;
const ZERO: Counts = { memoryHits: 0, diskHits: 0, misses: 0 };

/** Start one cache thread and wait until its endpoint listens. @throws Error when it fails or exits first */
async function spawn(opts: ObjectCacheOptions): Promise<{ worker: Worker; ready: Ready }> {
  // The thread registers tsx's loader before importing its TypeScript entry (a worker does not inherit it).
  const entry = new URL('./object-cache-thread.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: opts });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`index cache thread exited with ${code}`)));
    worker.once('message', resolve);
  });
  worker.removeAllListeners('exit');
  worker.removeAllListeners('error');
  worker.unref();
  return { worker, ready };
}

export class ObjectCache {
  private closing = false;
  /** Counters of the threads that ended (their last reported values), added to the live thread's. */
  private base: Counts = { ...ZERO };
  /** The live thread's counts as it last reported them. */
  private lastOwn: Counts = { ...ZERO };
  private restarts = 0;
  private live: Worker | null;
  /** When the live thread started, and the delay its restart waited (for the crash-loop backoff). */
  private startedAt = Date.now();
  private lastDelayMs = 0;

  private constructor(worker: Worker, private readonly opts: ObjectCacheOptions & { port: number; token: string }, private readonly origin: string) {
    this.live = worker;
    this.watch(worker);
  }

  /**
   * Start the cache's thread and its loopback endpoint.
   * @param opts memory and disk bounds (bytes), the disk directory, the real store's settings
   * @throws Error when the thread fails to start or to listen
   */
  static async start(opts: ObjectCacheOptions): Promise<ObjectCache> {
    const token = opts.token ?? crypto.randomBytes(16).toString('hex');
    const { worker, ready } = await spawn({ ...opts, token });
    const port = Number(new URL(ready.origin).port);
    return new ObjectCache(worker, { ...opts, port, token }, ready.origin);
  }

  /** A thread that ends while the cache is open is logged and started again (same port and token). */
  private watch(worker: Worker): void {
    worker.on('error', (err) => process.emitWarning(`index cache thread failed: ${String(err)}`, 'IndexCacheWarning'));
    worker.once('exit', (code) => {
      if (this.live !== worker) return;
      this.live = null;
      this.base = { memoryHits: this.base.memoryHits + this.lastOwn.memoryHits, diskHits: this.base.diskHits + this.lastOwn.diskHits, misses: this.base.misses + this.lastOwn.misses };
      this.lastOwn = { ...ZERO };
      if (this.closing) return;
      const looping = Date.now() - this.startedAt < RESTART_STABLE_MS && this.lastDelayMs > 0;
      const delay = looping ? Math.min(RESTART_MAX_MS, this.lastDelayMs * 2) : RESTART_FIRST_MS;
      process.emitWarning(`index cache thread exited with ${code}; starting it again in ${delay} ms`, 'IndexCacheWarning');
      void this.restart(delay);
    });
  }

  private async restart(delayMs: number): Promise<void> {
    await new Promise((r) => setTimeout(r, delayMs).unref());
    if (this.closing) return;
    try {
      const { worker } = await spawn(this.opts);
      if (this.closing) { await worker.terminate(); return; }
      this.restarts++;
      this.startedAt = Date.now();
      this.lastDelayMs = delayMs;
      this.live = worker;
      this.watch(worker);
    } catch (err) {
      // The port may still be held for a moment after the old thread's end; try again, more slowly.
      process.emitWarning(`index cache thread did not start again: ${String(err)}`, 'IndexCacheWarning');
      void this.restart(Math.min(RESTART_MAX_MS, delayMs * 2));
    }
  }

  /**
   * LanceDB storageOptions that send its S3 traffic through the cache. Requests are not signed (the cache
   * signs what it forwards; signing each of a search's reads cost LanceDB ≈0.15 ms of CPU apiece): the
   * endpoint's first path segment is the cache's random token instead, and anything without it is refused.
   */
  storageOptions(): Record<string, string> {
    return {
      region: this.opts.s3.region, endpoint: `${this.origin}/${this.opts.token}`, allow_http: 'true', virtual_hosted_style_request: 'false',
      aws_skip_signature: 'true', aws_access_key_id: 'unused', aws_secret_access_key: crypto.randomBytes(8).toString('hex'),
    };
  }

  /**
   * Hits and misses since start, summed over the threads this cache has run (a thread that ended counts
   * with the values it last reported). While a thread is being started again: the counts so far.
   */
  stats(): Promise<ObjectCacheStats> {
    const worker = this.live;
    const total = (own: Counts): ObjectCacheStats => ({
      memoryHits: this.base.memoryHits + own.memoryHits, diskHits: this.base.diskHits + own.diskHits,
      misses: this.base.misses + own.misses, restarts: this.restarts,
    });
    if (!worker) return Promise.resolve(total(ZERO));
    return new Promise((resolve) => {
      const on = (msg: { kind: string; stats?: Counts }) => {
        if (msg.kind !== 'stats') return;
        worker.off('message', on);
        worker.off('exit', gone);
        this.lastOwn = msg.stats!;
        resolve(total(msg.stats!));
      };
      // The thread ended before answering: its last counts are in `base` already (watch()).
      const gone = () => { worker.off('message', on); resolve(total(ZERO)); };
      worker.on('message', on);
      worker.once('exit', gone);
      worker.postMessage({ kind: 'stats' });
    });
  }

  /** Stop the endpoint and the thread. */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.live;
    if (!worker) return;
    const closed = new Promise<void>((resolve) => {
      worker.on('message', (msg: { kind: string }) => { if (msg.kind === 'closed') resolve(); });
      worker.once('exit', () => resolve());
    });
    worker.postMessage({ kind: 'close' });
    await closed;
    await worker.terminate();
  }
}
