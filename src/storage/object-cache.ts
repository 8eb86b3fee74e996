// The index read cache as the rest of the service sees it: start() runs the caching S3 endpoint
// (object-cache-proxy.ts) in a worker thread (object-cache-thread.ts) and hands LanceDB the storage
// options that point at it; close() stops it. docs/deployment.md "Index read cache" explains the sizing.
import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { ObjectCacheOptions } from './object-cache-proxy.ts';

/** Hits and misses of the cache by tier since start. */
export interface ObjectCacheStats {
  memoryHits: number;
  diskHits: number;
  misses: number;
}

export class ObjectCache {
  private constructor(private readonly worker: Worker, private readonly origin: string, private readonly token: string, private readonly region: string) {}

  /**
   * Start the cache's thread and its loopback endpoint.
   * @param opts memory and disk bounds (bytes), the disk directory, the real store's settings
   * @throws Error when the thread fails to start or to listen
   */
  static async start(opts: ObjectCacheOptions): Promise<ObjectCache> {
    // The thread registers tsx's loader before importing its TypeScript entry (a worker does not inherit it).
    const entry = new URL('./object-cache-thread.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
    const worker = new Worker(boot, { eval: true, workerData: opts });
    const ready = await new Promise<{ origin: string; token: string }>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`index cache thread exited with ${code}`)));
      worker.once('message', resolve);
    });
    worker.removeAllListeners('exit');
    worker.removeAllListeners('error');
    worker.on('error', (err) => process.emitWarning(`index cache thread failed: ${String(err)}`, 'IndexCacheWarning'));
    worker.unref();
    return new ObjectCache(worker, ready.origin, ready.token, opts.s3.region);
  }

  /**
   * LanceDB storageOptions that send its S3 traffic through the cache. Requests are not signed (the cache
   * signs what it forwards; signing each of a search's reads cost LanceDB ≈0.15 ms of CPU apiece): the
   * endpoint's first path segment is the cache's random token instead, and anything without it is refused.
   */
  storageOptions(): Record<string, string> {
    return {
      region: this.region, endpoint: `${this.origin}/${this.token}`, allow_http: 'true', virtual_hosted_style_request: 'false',
      aws_skip_signature: 'true', aws_access_key_id: 'unused', aws_secret_access_key: crypto.randomBytes(8).toString('hex'),
    };
  }

  /** Hits and misses since start. */
  stats(): Promise<ObjectCacheStats> {
    return new Promise((resolve) => {
      const on = (msg: { kind: string; stats?: ObjectCacheStats }) => {
        if (msg.kind !== 'stats') return;
        this.worker.off('message', on);
        resolve(msg.stats!);
      };
      this.worker.on('message', on);
      this.worker.postMessage({ kind: 'stats' });
    });
  }

  /** Stop the endpoint and the thread. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.worker.on('message', (msg: { kind: string }) => { if (msg.kind === 'closed') resolve(); });
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage({ kind: 'close' });
    await closed;
    await this.worker.terminate();
  }
}
