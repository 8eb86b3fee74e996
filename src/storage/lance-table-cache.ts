// Open LanceDB table handles, one per namespace, shared by all callers of the namespace index. Opening
// reads the recorded embedding signature and the FTS index name once; a handle whose table vanished
// (dropped by another process) is forgotten and reads on it answer "empty" instead of failing.

import type * as Lance from '@lancedb/lancedb';
import { AppError } from '../internal/errors.ts';
import { chunkSchema, readSignature } from './lance-arrow.ts';
import { findFts, type TableState } from './lance-maintenance.ts';
import type { EmbeddingSignature } from './namespace-index.ts';

/** The table is missing: openTable's "Table 'x' was not found", or a dropped table's "Not found: …/x.lance/_versions". */
export const isNotFound = (err: unknown): boolean =>
  /was not found|not found: \S*\.lance\b|does not exist/i.test(String((err as Error)?.message ?? err));

export class TableCache {
  private readonly tables = new Map<string, TableState>();
  private readonly opening = new Map<string, Promise<TableState | null>>();

  constructor(private readonly db: Lance.Connection) {}

  /** Cached table state, opening the table once (concurrent callers share the attempt); null if absent. */
  async get(namespace: string): Promise<TableState | null> {
    const cached = this.tables.get(namespace);
    if (cached) return cached;
    let pending = this.opening.get(namespace);
    if (!pending) {
      pending = this.openUncached(namespace).finally(() => this.opening.delete(namespace));
      this.opening.set(namespace, pending);
    }
    return pending;
  }

  /** Create the namespace table with its schema and signature (caller holds the namespace write lock). */
  async create(namespace: string, signature: EmbeddingSignature): Promise<TableState> {
    const table = await this.db.createEmptyTable(namespace, chunkSchema(signature), { mode: 'create', existOk: true });
    return this.adopt(namespace, table);
  }

  /**
   * Run `fn` on the namespace table; `empty` when the table does not exist or vanished under a cached
   * handle. Other engine failures drop the cached handle (the next call reopens) and propagate.
   */
  async read<T>(namespace: string, empty: T, fn: (state: TableState) => Promise<T>): Promise<T> {
    const state = await this.get(namespace);
    if (!state) return empty;
    try {
      return await fn(state);
    } catch (err) {
      if (err instanceof AppError) throw err;
      this.evict(namespace);
      if (isNotFound(err)) return empty;
      throw err;
    }
  }

  /** Forget the cached handle; close it only when no reader can still hold it (drop, shutdown). */
  evict(namespace: string, closeHandle = false): void {
    const state = this.tables.get(namespace);
    if (!state) return;
    this.tables.delete(namespace);
    if (!closeHandle) return;
    try {
      state.table.close();
    } catch {
      // already closed
    }
  }

  /** Close every cached handle. */
  closeAll(): void {
    for (const ns of [...this.tables.keys()]) this.evict(ns, true);
  }

  private async openUncached(namespace: string): Promise<TableState | null> {
    let table: Lance.Table;
    try {
      table = await this.db.openTable(namespace);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    return this.adopt(namespace, table);
  }

  /** Read the recorded signature and FTS index name, then cache the handle. */
  private async adopt(namespace: string, table: Lance.Table): Promise<TableState> {
    const signature = readSignature(await table.schema());
    if (!signature) {
      table.close();
      throw new AppError('embedder_mismatch', `namespace ${namespace} has no recorded embedding signature`, { namespace });
    }
    const state: TableState = { table, signature, fts: await findFts(table) };
    this.tables.set(namespace, state);
    return state;
  }
}
