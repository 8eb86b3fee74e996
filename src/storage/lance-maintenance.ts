// Index upkeep for LanceDB namespace tables: the FTS index settings and its "covers a live row" repair,
// the `doc_id` BTREE index, and an automatic optimize trigger (the vector index: lance-ann.ts). Each small write is a
// Lance commit and a new fragment; measured here (bench/lance-index.ts) 1 000 un-optimised per-document
// commits made BM25 top-50 p50 go from 3 ms to 90 ms, so optimize must follow ingests without waiting
// for an operator.

import { LRUCache } from 'lru-cache';
import type * as Lance from '@lancedb/lancedb';
import { annOf, type AnnIndex } from './lance-ann.ts';
import type { EmbeddingSignature } from './namespace-index.ts';
import type { IndexBuild } from './index-build.ts';

type LanceModule = typeof Lance;

/** An open namespace table and what we know about it. */
export interface TableState {
  table: Lance.Table;
  signature: EmbeddingSignature;
  /** What built the table (its schema metadata, index-build.ts). */
  build: IndexBuild;
  /** The namespace generation this table is (index-build.ts generationTable). */
  generation: number;
  /** Name of the FTS index on `tokens`; null until the first rows are written. */
  fts: string | null;
  /** The vector index (lance-ann.ts); undefined = not looked up at this version yet. */
  ann?: AnnIndex;
  /** Row count of the version the handle is at, when known (cleared whenever the handle moves). */
  count?: number;
  /**
   * Whether the table has the stored-layout column and the term-hash column (lance-layout.ts; once true,
   * never removed), and when that was checked (ms).
   */
  layoutColumns?: boolean;
  termsColumn?: boolean;
  /** Whether the table was created with the packed search column (lance-pack.ts); checked with the layout columns. */
  packColumn?: boolean;
  layoutCheckedAt?: number;
}

/** Lance FTS settings: tokens are pre-analysed (analysis/analyzer.ts), so only split on whitespace. */
export const FTS_OPTIONS = {
  baseTokenizer: 'whitespace',
  lowercase: false,
  stem: false,
  removeStopWords: false,
  asciiFolding: false,
  withPosition: false,
  // Lance drops tokens longer than this (default 40); long identifiers and chemical names exceed that.
  maxTokenLength: 100,
} as const;

/** Name of the FTS index on `tokens` among a table's indices, or null when there is none. */
function ftsOf(indices: Lance.IndexConfig[]): string | null {
  return indices.find((i) => i.indexType === 'FTS' && i.columns.includes('tokens'))?.name ?? null;
}

/** Name of the FTS index on `tokens`, or null when there is none. */
export async function findFts(table: Lance.Table): Promise<string | null> {
  return ftsOf(await table.listIndices());
}

/** The FTS and the vector index of a table, from one listIndices() (a handle opened or moved to a new version). */
export async function readIndexes(table: Lance.Table): Promise<Pick<TableState, 'fts' | 'ann'>> {
  const indices = await table.listIndices();
  return { fts: ftsOf(indices), ann: annOf(indices) };
}

/**
 * Make sure the FTS index covers at least one live row (caller holds the namespace write lock).
 * Lance 0.37 searches rows added after an index build by scanning them, but when the index covers no
 * live row (built on an empty table, or everything indexed was deleted) that scan returns the first
 * `limit` matches unranked (measured on SciFact: top-10 overlap 0.03 with the optimised index).
 * Rebuilding then costs one pass over the table, which is small at that point. Called after adds,
 * deletes and optimize; the check itself is one indexStats call (≈0.1 ms).
 */
export async function ensureFts(lancedb: LanceModule, state: TableState): Promise<void> {
  if (state.fts) {
    const stats = await state.table.indexStats(state.fts);
    if (stats && stats.numIndexedRows > 0) return;
  }
  if ((await state.table.countRows()) === 0) return;
  await state.table.createIndex('tokens', { config: lancedb.Index.fts(FTS_OPTIONS), replace: true });
  state.fts = await findFts(state.table);
}

/**
 * Build a BTREE scalar index on `doc_id` when the table has rows and none yet (caller: optimize). Reads by
 * document (getChunks for hit expansion, deleteDocument, doc-id prefilters) then look the document up
 * instead of scanning the column: getChunks at 100k rows went from 4.9 ms to 1.8 ms p50 (bench
 * bench:latency namespace; built in 15 ms). Rows added later are scanned until the next optimize, whose
 * `table.optimize()` folds them into the index. Returns true when an index was built.
 */
export async function ensureDocIdIndex(lancedb: LanceModule, table: Lance.Table, rows: number): Promise<boolean> {
  if (rows === 0) return false;
  if ((await table.listIndices()).some((i) => i.columns.length === 1 && i.columns[0] === 'doc_id')) return false;
  await table.createIndex('doc_id', { config: lancedb.Index.btree(), replace: true });
  return true;
}

/**
 * Runs `optimize(namespace)` in the background after every `every` writes to a namespace (0 = never).
 * At most one run per namespace is queued at a time; failures go to `onError`. drain() waits for all
 * runs and stops scheduling new ones.
 */
export class AutoOptimizer {
  /** Writes since the last run per namespace; bounded (a forgotten count only delays one background run). */
  private readonly writes = new LRUCache<string, number>({ max: 10_000 });
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly every: number,
    private readonly optimize: (namespace: string) => Promise<void>,
    private readonly onError: (namespace: string, err: unknown) => void,
  ) {}

  /** Count one write (add or delete commit) to `namespace`; may start a background optimize. */
  noteWrite(namespace: string): void {
    if (this.every <= 0 || this.stopped) return;
    const n = (this.writes.get(namespace) ?? 0) + 1;
    if (n < this.every || this.running.has(namespace)) {
      this.writes.set(namespace, n);
      return;
    }
    this.writes.set(namespace, 0);
    const run = this.optimize(namespace)
      .catch((err) => this.onError(namespace, err))
      .finally(() => this.running.delete(namespace));
    this.running.set(namespace, run);
  }

  /** Forget the counter of a dropped namespace. */
  forget(namespace: string): void {
    this.writes.delete(namespace);
  }

  /** Stop scheduling and wait for the runs in flight. */
  async drain(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running.values()]);
  }
}
