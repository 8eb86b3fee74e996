// Group commit of ingested documents (docs/scale-out.md). Parsing and embedding run on
// any worker in parallel; the commit to a namespace's index table is what one writer at a time may do.
// Jobs of this process that finish embedding while a commit to their namespace is in progress (or while
// another node holds the namespace's writer lease) wait here and are committed together: one delete of
// their earlier attempts' rows, one append, one lexical refresh, under one lease acquisition. A job
// learns that its rows are committed only after all three; it becomes `done` afterwards in its own
// control-plane transaction, so a crash anywhere leaves its job unfinished and its retry starts clean.
// A job that replaces a document (same source, ingest/source-identity.ts) is different: its rows swap with
// the document's in one merge commit, and its `finalize` (the control-plane switch) runs right after,
// still under the lease, so swaps and switches of one document happen in the same order
// (docs/decisions/2026-11-29-source-replacement.md).
import type { ChunkRecord, EmbeddingSignature, NamespaceIndex } from '../storage/namespace-index.ts';

/** Time one job's commit took (ms): waiting for its group, and the group's write and full-text refresh. */
export interface CommitTiming {
  wait: number;
  write: number;
  indexRefresh: number;
  /** Documents in the group that committed this job's rows. */
  groupDocs: number;
}

/** One group commit, as reported to `onGroup`: its documents, rows and stage times (ms). */
export interface GroupTiming {
  docs: number;
  rows: number;
  write: number;
  indexRefresh: number;
}

interface Entry {
  jobId: string;
  rows: ChunkRecord[];
  signature: EmbeddingSignature;
  /** The document these rows replace (all rows carry its doc_id); absent for a new document. */
  replaces?: string;
  finalize?: () => Promise<void>;
  /** When the entry started waiting (performance.now()). */
  queuedAt: number;
  resolve: (t: CommitTiming) => void;
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
   * @param onGroup receives the stage times of every group written (metrics)
   */
  constructor(private readonly index: NamespaceIndex, private readonly maxRows = 20_000, private readonly onGroup?: (t: GroupTiming) => void) {}

  /**
   * Commit one job's rows to `namespace`, grouped with the other jobs waiting for it.
   * With `replace`, the rows replace every row of document `replace.docId` in one commit, and
   * `replace.finalize` runs after it (and the lexical refresh) under the same writer lease.
   * Resolves once they are in the table and in its lexical index (and finalized), with the time spent
   * waiting and in the group's stages; rejects with the commit's error, or finalize's (the swap has then
   * happened).
   */
  commit(namespace: string, jobId: string, rows: ChunkRecord[], signature: EmbeddingSignature, replace?: { docId: string; finalize: () => Promise<void> }): Promise<CommitTiming> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(namespace) ?? [];
      list.push({ jobId, rows, signature, replaces: replace?.docId, finalize: replace?.finalize, queuedAt: performance.now(), resolve, reject });
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
    const group: Entry[] = [];
    const replaced = new Set<string>();
    // In arrival order; a second replacement of a document already in the group waits for the next one
    // (one merge cannot take two versions of a document).
    for (let i = 0; i < list.length && (group.length === 0 || rows + list[i].rows.length <= this.maxRows); i++) {
      const e = list[i];
      if (e.replaces !== undefined) {
        if (replaced.has(e.replaces)) continue;
        replaced.add(e.replaces);
      }
      group.push(e);
      rows += e.rows.length;
    }
    const taken = new Set(group);
    const rest = list.filter((e) => !taken.has(e));
    if (rest.length === 0) this.waiting.delete(namespace);
    else this.waiting.set(namespace, rest);
    return group;
  }

  /** Write a group; if it fails as a whole, each document is retried alone so one bad job fails alone. */
  private async commitGroup(namespace: string, group: Entry[]): Promise<void> {
    try {
      const t = await this.write(namespace, group);
      await this.finish(group, t);
      return;
    } catch (err) {
      if (group.length === 1) {
        group[0].reject(err);
        return;
      }
    }
    for (const e of group) {
      let t: GroupTiming & { startedAt: number };
      try {
        t = await this.write(namespace, [e]);
      } catch (err) {
        e.reject(err);
        continue;
      }
      await this.finish([e], t);
    }
  }

  /** Finalize the replacements of a written group (in order), then settle every entry. */
  private async finish(group: Entry[], t: GroupTiming & { startedAt: number }): Promise<void> {
    for (const e of group) {
      try {
        await e.finalize?.();
        e.resolve({ wait: Math.max(0, t.startedAt - e.queuedAt), write: t.write, indexRefresh: t.indexRefresh, groupDocs: t.docs });
      } catch (err) {
        e.reject(err);
      }
    }
  }

  private async write(namespace: string, group: Entry[]): Promise<GroupTiming & { startedAt: number }> {
    const startedAt = performance.now();
    const added = group.filter((e) => e.replaces === undefined);
    const replacing = group.filter((e) => e.replaces !== undefined);
    if (added.length > 0) {
      // Rows of an earlier, interrupted attempt of these jobs go first, so a retry never duplicates.
      await this.index.deleteByJobs(namespace, added.map((e) => e.jobId));
      await this.index.addChunks(namespace, added.flatMap((e) => e.rows), added[0].signature);
    }
    // A replacement's earlier attempt, if it got this far, already swapped the document: the merge
    // rewrites its rows again, so nothing is deleted first (that would leave the document empty meanwhile).
    if (replacing.length > 0) {
      await this.index.replaceDocuments(namespace, replacing.map((e) => e.replaces!), replacing.flatMap((e) => e.rows), replacing[0].signature);
    }
    const written = performance.now();
    // Done means searchable: the rows are in the BM25 index before any of the documents is visible.
    await this.index.refreshLexical(namespace);
    this.stats.groups++;
    this.stats.documents += group.length;
    const t = { docs: group.length, rows: group.reduce((n, e) => n + e.rows.length, 0), write: written - startedAt, indexRefresh: performance.now() - written };
    this.onGroup?.(t);
    return { ...t, startedAt };
  }
}
