// Group commit of ingested documents (docs/scale-out.md). Parsing and embedding run on
// any worker in parallel; the commit to a namespace's index table is what one writer at a time may do.
// Jobs of this process that finish embedding while a commit to their namespace is in progress (or while
// another node holds the namespace's writer lease) wait here and are committed together: one delete of
// their earlier attempts' rows, one append, one lexical refresh, under one lease acquisition. A job
// learns that its rows are committed only after all three; it becomes `done` afterwards in its own
// control-plane transaction, so a crash anywhere leaves its job unfinished and its retry starts clean.
import type { ChunkRecord, EmbeddingSignature, NamespaceIndex } from '../storage/namespace-index.ts';

interface Entry {
  jobId: string;
  rows: ChunkRecord[];
  signature: EmbeddingSignature;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface CommitGroupStats {
  /** Group commits made and documents committed in them (a document retried alone counts once). */
  groups: number;
  documents: number;
}

export class CommitGroups {
  private readonly waiting = new Map<string, Entry[]>();
  private readonly draining = new Set<string>();
  readonly stats: CommitGroupStats = { groups: 0, documents: 0 };

  /**
   * @param maxRows rows per group at most (a group is one Lance append; default 20 000): bounds the
   *                memory and the time one commit holds the lease
   */
  constructor(private readonly index: NamespaceIndex, private readonly maxRows = 20_000) {}

  /**
   * Commit one job's rows to `namespace`, grouped with the other jobs waiting for it.
   * Resolves once they are in the table and in its lexical index; rejects with the commit's error.
   */
  commit(namespace: string, jobId: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(namespace) ?? [];
      list.push({ jobId, rows, signature, resolve, reject });
      this.waiting.set(namespace, list);
      if (!this.draining.has(namespace)) void this.drain(namespace);
    });
  }

  /** Commit groups until nobody waits for `namespace`; the lease is taken anew per group (fairness). */
  private async drain(namespace: string): Promise<void> {
    this.draining.add(namespace);
    try {
      while (this.waiting.get(namespace)?.length) {
        let group: Entry[] = [];
        try {
          // The group is taken once the lease is ours: jobs arriving while we waited join it.
          await this.index.withWriter(namespace, async () => {
            group = this.take(namespace);
            await this.commitGroup(namespace, group);
          });
        } catch (err) {
          if (group.length === 0) group = this.take(namespace); // the lease could not be had
          for (const e of group) e.reject(err);
        }
      }
    } finally {
      this.draining.delete(namespace);
    }
  }

  private take(namespace: string): Entry[] {
    const list = this.waiting.get(namespace) ?? [];
    let rows = 0;
    let n = 0;
    while (n < list.length && (n === 0 || rows + list[n].rows.length <= this.maxRows)) rows += list[n++].rows.length;
    const group = list.splice(0, n);
    if (list.length === 0) this.waiting.delete(namespace);
    return group;
  }

  /** Write a group; if it fails as a whole, each document is retried alone so one bad job fails alone. */
  private async commitGroup(namespace: string, group: Entry[]): Promise<void> {
    try {
      await this.write(namespace, group);
      for (const e of group) e.resolve();
      return;
    } catch (err) {
      if (group.length === 1) {
        group[0].reject(err);
        return;
      }
    }
    for (const e of group) {
      try {
        await this.write(namespace, [e]);
        e.resolve();
      } catch (err) {
        e.reject(err);
      }
    }
  }

  private async write(namespace: string, group: Entry[]): Promise<void> {
    // Rows of an earlier, interrupted attempt of these jobs go first, so a retry never duplicates.
    await this.index.deleteByJobs(namespace, group.map((e) => e.jobId));
    await this.index.addChunks(namespace, group.flatMap((e) => e.rows), group[0].signature);
    // Done means searchable: the rows are in the BM25 index before any of the documents is visible.
    await this.index.refreshLexical(namespace);
    this.stats.groups++;
    this.stats.documents += group.length;
  }
}
