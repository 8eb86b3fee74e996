// Open LanceDB table handles, one per namespace, shared by all callers of the namespace index. Opening
// reads the recorded embedding signature and the FTS index name once; a handle whose table vanished
// (dropped by another process) is forgotten and reads on it answer "empty" instead of failing.
// With a version source (the control plane's per-namespace commit counter) a handle is moved
// to the table's latest version when another node committed since it was loaded; the counter is read at
// most once per `syncMs` per namespace, which bounds how late a reader sees another node's commit.
// A namespace is served by the table of its current generation (index-build.ts): when the counter moved, the
// generation is read too, and a handle of a generation the namespace no longer has is dropped and the new
// generation's table opened (an online reindex's switch, docs/reindex.md).
// At most `maxOpen` handles are kept, least recently used first out, so memory follows the namespaces in
// use, not the number of projects: an evicted handle is not closed (a read may still hold it; the native
// table is freed when the last reference goes) and the namespace's next read opens it again.

import type * as Lance from '@lancedb/lancedb';
import { AppError } from '../internal/errors.ts';
import { chunkSchema, readSignature } from './lance-arrow.ts';
import { BUILD_KEY, decodeBuild, generationTable, type IndexBuild } from './index-build.ts';
import { hasPackColumn } from './lance-pack.ts';
import { readIndexes, type TableState } from './lance-maintenance.ts';
import type { EmbeddingSignature } from './namespace-index.ts';

/** The table is missing: openTable's "Table 'x' was not found", or a dropped table's "Not found: …/x.lance/_versions". */
export const isNotFound = (err: unknown): boolean =>
  /was not found|not found: \S*\.lance\b|does not exist/i.test(String((err as Error)?.message ?? err));

/** Commit counters of namespaces kept by the control plane (storage/lease-store.ts). */
export interface VersionSource {
  version(namespace: string): Promise<number>;
  /** The namespace's serving generation (0 when never switched); absent = always 0. */
  generation?(namespace: string): Promise<number>;
  /** The highest generation the namespace has or builds (its tables are generations 0 to this); absent = 0. */
  highestGeneration?(namespace: string): Promise<number>;
  /** Note what built the namespace's serving table, for reports that read no table (storage/lease-store.ts). */
  recordBuild?(namespace: string, build: IndexBuild): Promise<void>;
}

interface Seen {
  /** Commit counter the cached handle reflects (at least). */
  version: number;
  /** When the counter was last read, ms. */
  checkedAt: number;
  /** A read of the counter (and checkout) in progress, shared by concurrent callers. */
  pending?: Promise<void>;
}

/**
 * Open handles kept by default: each holds its table's manifest, fragment and schema metadata, and
 * reopening an evicted one costs a manifest read and the signature and index lookups (bench/many-tenants.ts
 * measures both; docs/deployment.md "Memory with many namespaces").
 */
export const DEFAULT_MAX_OPEN_TABLES = 1000;

export class TableCache {
  private readonly tables = new Map<string, TableState>();
  private readonly opening = new Map<string, Promise<TableState | null>>();
  private readonly seen = new Map<string, Seen>();
  /** Build records noted per namespace by this process (JSON), so a reopened table is not noted again. */
  private readonly noted = new Map<string, string>();

  /**
   * @param versions commit counters of other nodes' writes; without it handles are never re-checked here
   *                 (the connection's readConsistencyInterval does it)
   * @param syncMs   longest time a cached handle is used without re-reading the counter, ms
   * @param maxOpen  most handles kept open (least recently used evicted); default DEFAULT_MAX_OPEN_TABLES
   */
  constructor(private readonly db: Lance.Connection, private readonly versions?: VersionSource, private readonly syncMs = 100, private readonly maxOpen = DEFAULT_MAX_OPEN_TABLES) {}

  /** Handles open now. */
  get size(): number {
    return this.tables.size;
  }

  /** Cached table state, opening the table once (concurrent callers share the attempt); null if absent. */
  async get(namespace: string): Promise<TableState | null> {
    const cached = this.tables.get(namespace);
    if (cached) {
      this.tables.delete(namespace); // most recently used last
      this.tables.set(namespace, cached);
      await this.sync(namespace, cached, false);
      return this.tables.get(namespace) ?? this.get(namespace);
    }
    let pending = this.opening.get(namespace);
    if (!pending) {
      pending = this.openUncached(namespace).finally(() => this.opening.delete(namespace));
      this.opening.set(namespace, pending);
    }
    return pending;
  }

  /** Create the namespace table with its schema and signature (caller holds the namespace write lock). */
  async create(namespace: string, signature: EmbeddingSignature): Promise<TableState> {
    const generation = await this.generation(namespace);
    const table = await this.db.createEmptyTable(generationTable(namespace, generation), chunkSchema(signature), { mode: 'create', existOk: true });
    return this.adopt(namespace, table, generation);
  }

  /** Every generation's table name a namespace may have (generations 0 to the highest it has or builds). */
  async allTables(namespace: string): Promise<string[]> {
    const top = (await this.versions?.highestGeneration?.(namespace)) ?? 0;
    return Array.from({ length: top + 1 }, (_, g) => generationTable(namespace, g));
  }

  /** The namespace's serving generation in the control plane (0 without one). */
  generation(namespace: string): Promise<number> {
    return this.versions?.generation?.(namespace) ?? Promise.resolve(0);
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

  /**
   * Move the cached handle to the table's latest version now if another node committed since it was
   * loaded (writers call this after acquiring the writer lease, so they commit on top of the latest).
   */
  async refresh(namespace: string): Promise<void> {
    const cached = this.tables.get(namespace);
    if (cached) await this.sync(namespace, cached, true);
  }

  /** Record that this process committed and its handle now reflects commit counter `version`. */
  noteCommitted(namespace: string, version: number): void {
    const state = this.tables.get(namespace);
    if (!state) return; // evicted meanwhile: the next open reads the counter afresh
    this.seen.set(namespace, { version, checkedAt: Date.now() });
    state.count = undefined;
  }

  /**
   * Row count of the namespace table, cached per table version when versions are tracked (every move
   * of the handle, ours or after another node's commit, clears it); else counted on every call.
   */
  async count(namespace: string): Promise<number> {
    return this.read(namespace, 0, async (state) => {
      if (!this.versions) return state.table.countRows();
      if (state.count !== undefined) return state.count;
      const before = this.seen.get(namespace)?.version;
      const n = await state.table.countRows();
      if (this.seen.get(namespace)?.version === before) state.count = n; // no commit moved the handle meanwhile
      return n;
    });
  }

  private async sync(namespace: string, state: TableState, force: boolean): Promise<void> {
    if (!this.versions) return;
    let seen = this.seen.get(namespace);
    if (seen?.pending) {
      await seen.pending.catch(() => undefined);
      if (!force) return;
      seen = this.seen.get(namespace);
      if (seen?.pending) return seen.pending;
    }
    if (!force && seen && Date.now() - seen.checkedAt < this.syncMs) return;
    const entry: Seen = seen ?? { version: -1, checkedAt: 0 };
    this.seen.set(namespace, entry);
    entry.pending = (async () => {
      const checkedAt = Date.now();
      const version = await this.versions!.version(namespace);
      if (version !== entry.version && (await this.generation(namespace)) !== state.generation) {
        this.evict(namespace); // switched to another generation: the next get() opens its table
      } else if (version !== entry.version) {
        try {
          await state.table.checkoutLatest();
          state.count = undefined;
          Object.assign(state, await readIndexes(state.table));
        } catch (err) {
          if (!isNotFound(err)) throw err;
          this.evict(namespace); // dropped by another node
        }
      }
      Object.assign(entry, { version, checkedAt });
    })().finally(() => { entry.pending = undefined; });
    return entry.pending;
  }

  /** Forget the cached handle; close it only when no reader can still hold it (drop, shutdown). */
  evict(namespace: string, closeHandle = false): void {
    const state = this.tables.get(namespace);
    this.seen.delete(namespace);
    if (!state) return;
    this.tables.delete(namespace);
    if (!closeHandle) return;
    try {
      state.table.close();
    } catch {
      // already closed
    }
  }

  /** Record the build of a namespace's serving table once per process and change (best effort: a report, not state). */
  private note(namespace: string, build: IndexBuild): void {
    const json = JSON.stringify(build);
    if (!this.versions?.recordBuild || this.noted.get(namespace) === json) return;
    this.noted.set(namespace, json);
    this.versions.recordBuild(namespace, build).catch(() => this.noted.delete(namespace));
  }

  /** Close every cached handle. */
  closeAll(): void {
    for (const ns of [...this.tables.keys()]) this.evict(ns, true);
  }

  private async openUncached(namespace: string): Promise<TableState | null> {
    // The counter is read BEFORE opening: the handle reflects at least that version.
    const checkedAt = Date.now();
    const version = this.versions ? await this.versions.version(namespace) : 0;
    const generation = await this.generation(namespace);
    let table: Lance.Table;
    try {
      table = await this.db.openTable(generationTable(namespace, generation));
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    const state = await this.adopt(namespace, table, generation);
    this.seen.set(namespace, { version, checkedAt });
    return state;
  }

  /** Read the recorded signature, build record and FTS index name, then cache the handle. */
  private async adopt(namespace: string, table: Lance.Table, generation: number): Promise<TableState> {
    const schema = await table.schema();
    const signature = readSignature(schema);
    if (!signature) {
      table.close();
      throw new AppError('embedder_mismatch', `namespace ${namespace} has no recorded embedding signature`, { namespace });
    }
    const build = decodeBuild(schema.metadata.get(BUILD_KEY), signature, hasPackColumn(schema));
    const state: TableState = { table, signature, build, generation, ...(await readIndexes(table)) };
    this.note(namespace, build);
    this.tables.delete(namespace);
    this.tables.set(namespace, state);
    for (const oldest of this.tables.keys()) {
      if (this.tables.size <= this.maxOpen || oldest === namespace) break;
      this.evict(oldest);
    }
    return state;
  }
}
