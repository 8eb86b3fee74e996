// A small keyed async mutex: LanceDB commits to one table are serialised within the process (parallel
// ingests into one namespace, table creation races), while different keys proceed concurrently.

/** Runs callbacks one at a time per key, in call order; unrelated keys never wait for each other. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Run `fn` once every earlier `run` with the same key has settled; resolves/rejects with `fn`'s
   * result. A failing callback does not block the ones queued after it.
   */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/**
 * Coalesces a per-key refresh: a caller waits for a run of `fn` that STARTED after its call, and callers
 * that arrive while one run is in progress share the single next run (group commit). At most one run per
 * key is in progress and at most one is queued.
 */
export class KeyedCoalescer {
  private readonly running = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();

  /** Resolve once a run of `fn` that began after this call has finished (rejects with its error). */
  run(key: string, fn: () => Promise<void>): Promise<void> {
    const waiting = this.queued.get(key);
    if (waiting) return waiting;
    const start = (): Promise<void> => {
      const p = fn().finally(() => { if (this.running.get(key) === p) this.running.delete(key); });
      this.running.set(key, p);
      return p;
    };
    const current = this.running.get(key);
    if (!current) return start();
    const next = current.catch(() => undefined).then(() => {
      this.queued.delete(key);
      return start();
    });
    this.queued.set(key, next);
    return next;
  }
}
