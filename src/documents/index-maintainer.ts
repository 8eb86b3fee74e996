// Background index maintenance per namespace (DESIGN.md §2 LanceDB notes): rows added after the FTS
// index was built are found by an unindexed scan until optimize() folds them in. After writes settle
// (a debounce), optimize runs and the documents committed before it started move from
// bm25_state 'pending' to 'indexed'.
import type { Logger } from 'pino';
import type { ControlPlane } from '../storage/db.ts';
import { nowIso } from '../storage/db.ts';
import type { NamespaceIndex } from '../storage/namespace-index.ts';

export class IndexMaintainer {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  /** @param debounceMs quiet time after the last write before optimize runs */
  constructor(private readonly deps: { cp: ControlPlane; index: NamespaceIndex; logger: Logger; debounceMs: number }) {}

  /** Note a write to `namespace`; optimize runs `debounceMs` after the last one. */
  touch(namespace: string): void {
    if (this.closed) return;
    const t = this.timers.get(namespace);
    if (t) clearTimeout(t);
    this.timers.set(namespace, setTimeout(() => {
      this.timers.delete(namespace);
      void this.optimizeNow(namespace);
    }, this.deps.debounceMs).unref());
  }

  /** Optimize one namespace now and mark its committed documents indexed. */
  async optimizeNow(namespace: string): Promise<void> {
    const prev = this.running.get(namespace);
    if (prev) await prev.catch(() => undefined);
    const p = (async () => {
      const startedAt = nowIso();
      try {
        await this.deps.index.optimize(namespace);
        const project = await this.deps.cp.db.selectFrom('projects').select('id').where('namespace', '=', namespace).executeTakeFirst();
        if (project) {
          await this.deps.cp.db.updateTable('documents').set({ bm25_state: 'indexed' })
            .where('project_id', '=', project.id).where('bm25_state', '=', 'pending').where('ingested_at', '<=', startedAt).execute();
        }
      } catch (err) {
        this.deps.logger.warn({ err, namespace }, 'index optimize failed');
      }
    })();
    this.running.set(namespace, p);
    await p;
    if (this.running.get(namespace) === p) this.running.delete(namespace);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running.values()]);
  }
}
