// Where every commit to a namespace's Lance table passes (docs/scale-out.md): the in-process
// write lock orders this process's commits, and with coordination the namespace's writer lease makes
// this node the only one committing. Right before a commit the lease is re-checked and the table handle
// moved to the latest version (the previous holder's commits); after it the namespace's commit counter
// is bumped so readers on other nodes move their handles too.
import { KeyedMutex } from './lance-mutex.ts';
import type { TableCache } from './lance-table-cache.ts';
import type { LeaseStore } from './lease-store.ts';
import type { WriterLeases } from './writer-lease.ts';

/** Several nodes on one index: the writer leases, the commit counters, and how often readers check them. */
export interface Coordination {
  leases: WriterLeases;
  versions: LeaseStore;
  /** Longest time a reader uses a handle without re-reading the commit counter, ms. Default 100. */
  syncMs?: number;
}

export class CommitGate {
  private readonly writes = new KeyedMutex();

  constructor(private readonly tables: TableCache, private readonly coordination?: Coordination) {}

  /**
   * Run `fn` while this node holds the namespace's writer lease (without coordination: at once); the
   * commits inside it need no new acquisition.
   */
  async withWriter<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
    const c = this.coordination;
    if (!c) return fn();
    return c.leases.hold(namespace, async () => {
      await this.tables.refresh(namespace); // another node may have committed before we got the lease
      return fn();
    });
  }

  /**
   * One commit: in-process write lock (unless `serialise` is false: a long index build next to this
   * process's appends), writer lease checked right before it, handle at the latest version, counter bumped.
   */
  async commit<T>(namespace: string, fn: () => Promise<T>, serialise = true): Promise<T> {
    const c = this.coordination;
    const run = !c ? fn : () => c.leases.hold(namespace, async () => {
      await c.leases.ensureValid(namespace);
      await this.tables.refresh(namespace);
      const result = await fn();
      this.tables.noteCommitted(namespace, await c.versions.bumpVersion(namespace));
      return result;
    });
    return serialise ? this.writes.run(namespace, run) : run();
  }
}
