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
