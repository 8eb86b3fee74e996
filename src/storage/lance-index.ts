// The default data plane: NamespaceIndex on LanceDB (DESIGN.md §2). One Lance table per namespace holds
// the chunks, their vectors and their pre-analysed tokens; BM25 comes from Lance's native FTS index on
// `tokens`, vector search is cosine (flat until the table passes a size threshold, then IVF_FLAT or
// IVF_HNSW_SQ by lance-ann.ts, built in optimize()), and ChunkFilter prefilters run inside the engine
// before ranking. Writes to one namespace are serialised in-process and, with coordination
// (docs/scale-out.md), across nodes by the namespace's writer lease; reads run concurrently on cached
// table handles. This class is what importers use; its parts live beside it by responsibility: ranked
// reads (lance-search.ts), reads by position or address (lance-row-reads.ts), commits and maintenance
// (lance-writes.ts), and the state they share (lance-context.ts).
import type * as Lance from '@lancedb/lancedb';
import { AppError } from '../internal/errors.ts';
import { yieldToEventLoop } from '../internal/event-loop.ts';
import type { LanceContext, LanceIndexOptions, LanceModule } from './lance-context.ts';
import { AutoOptimizer } from './lance-maintenance.ts';
import { getChunkRanges, getChunks, getChunksAt, getHeadings, listDocIds } from './lance-row-reads.ts';
import { bm25Search, vectorSearch } from './lance-search.ts';
import { assertNamespace, sqlString } from './lance-sql.ts';
import { TableCache } from './lance-table-cache.ts';
import { CommitGate } from './lance-commit-gate.ts';
import { LanceWrites } from './lance-writes.ts';
import { generationTable, type IndexBuild } from './index-build.ts';
import type {
  ChunkFilter,
  DocJobRows,
  ChunkRef,
  ChunkRecord,
  EmbeddingSignature,
  IndexHit,
  NamespaceIndex,
  ReadOptions,
  StoredChunk,
} from './namespace-index.ts';

export type { LanceIndexOptions };

/**
 * Open (or create on first write) the LanceDB database at `opts.uri`. Sets LANCEDB_LOG=error (unless
 * already set) before the native module is first loaded, since its logger reads the variable at load.
 */
export async function openLanceIndex(opts: LanceIndexOptions): Promise<LanceNamespaceIndex> {
  process.env.LANCEDB_LOG ??= 'error';
  const lancedb: LanceModule = await import('@lancedb/lancedb');
  const m = opts.memory;
  const session = m?.indexCacheBytes || m?.metadataCacheBytes
    ? new lancedb.Session(m.indexCacheBytes ? BigInt(m.indexCacheBytes) : undefined, m.metadataCacheBytes ? BigInt(m.metadataCacheBytes) : undefined)
    : undefined;
  const db = await lancedb.connect(opts.uri, {
    storageOptions: opts.storageOptions,
    readConsistencyInterval: opts.coordination ? undefined : (opts.readConsistencySeconds ?? 0),
    ...(session && !opts.remote ? { session } : {}),
    ...opts.remote,
  });
  return new LanceNamespaceIndex(lancedb, db, opts);
}

export class LanceNamespaceIndex implements NamespaceIndex {
  private readonly ctx: LanceContext;
  private readonly writes: LanceWrites;
  private readonly auto: AutoOptimizer;
  private closed = false;

  constructor(lancedb: LanceModule, db: Lance.Connection, opts: LanceIndexOptions) {
    const tables = new TableCache(db, opts.coordination?.versions, opts.coordination?.syncMs ?? 100, opts.memory?.openTables);
    const onMaintenanceError =
      opts.onMaintenanceError ??
      ((ns: string, err: unknown) => process.emitWarning(`index maintenance of ${ns} failed: ${String(err)}`, 'LanceIndexWarning'));
    this.ctx = { lancedb, db, opts, tables, gate: new CommitGate(tables, opts.coordination), onMaintenanceError };
    this.auto = new AutoOptimizer(opts.autoOptimizeEveryWrites ?? 50, (ns) => this.optimize(ns), onMaintenanceError);
    this.writes = new LanceWrites(this.ctx, this.auto);
  }

  async addChunks(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void> {
    this.check(namespace);
    await this.writes.addChunks(namespace, rows, signature);
  }

  async deleteDocument(namespace: string, docId: string): Promise<number> {
    return this.deleteWhere(namespace, `doc_id = ${sqlString(docId)}`);
  }

  async deleteDocuments(namespace: string, docIds: string[]): Promise<number> {
    if (docIds.length === 0) return 0;
    return this.deleteWhere(namespace, `doc_id IN (${docIds.map(sqlString).join(', ')})`);
  }

  async replaceDocuments(namespace: string, docIds: string[], rows: ChunkRecord[], signature: EmbeddingSignature): Promise<number> {
    this.check(namespace);
    return this.writes.replaceDocuments(namespace, docIds, rows, signature);
  }

  async deleteByJob(namespace: string, jobId: string, docId?: string): Promise<number> {
    const onlyDoc = docId === undefined ? '' : ` AND doc_id = ${sqlString(docId)}`;
    return this.deleteWhere(namespace, `source_job_id = ${sqlString(jobId)}${onlyDoc}`);
  }

  async deleteByJobs(namespace: string, jobIds: string[]): Promise<number> {
    if (jobIds.length === 0) return 0;
    return this.deleteWhere(namespace, `source_job_id IN (${jobIds.map(sqlString).join(', ')})`);
  }

  /**
   * Rows appended after the FTS index was built are found by the engine's scan, scored with the statistics
   * of the whole table, while the indexed rows keep the index's: fine while the rows outside are few
   * (lance-writes.ts lexicalFoldDue), wrong when they outnumber the indexed ones (one indexed row scored
   * 9.2 instead of 13.6 with 25 times its index outside). Lance's optimize() folds them in, but also
   * compacts, rewriting the whole table while it is under 1M rows: 0.4–0.9 s at 20k rows, 0.9–2.5 s at 100k
   * on a quiet machine, 7.5 s at 100k under load. So from 20 000 indexed rows a fold runs only once more
   * than `lexicalScanRows` rows (or 20% of the indexed rows) are outside; below, every refresh folds.
   * Jobs finishing together share one run.
   */
  async refreshLexical(namespace: string): Promise<void> {
    this.check(namespace);
    await this.writes.refreshLexical(namespace);
  }

  async vectorSearch(namespace: string, vector: Float32Array, limit: number, filter?: ChunkFilter, opts: ReadOptions = {}): Promise<IndexHit[]> {
    this.check(namespace);
    return vectorSearch(this.ctx, namespace, vector, limit, filter, opts);
  }

  async bm25Search(namespace: string, queryTokens: string[], limit: number, filter?: ChunkFilter, boosts?: ReadonlyMap<string, number>, opts: ReadOptions = {}): Promise<IndexHit[]> {
    this.check(namespace);
    return bm25Search(this.ctx, namespace, queryTokens, limit, filter, boosts, opts);
  }

  async getChunks(namespace: string, docId: string, from: number, to: number): Promise<StoredChunk[]> {
    this.check(namespace);
    return getChunks(this.ctx, namespace, docId, from, to);
  }

  async getChunkRanges(namespace: string, ranges: Array<{ docId: string; from: number; to: number }>, opts: ReadOptions = {}): Promise<StoredChunk[]> {
    this.check(namespace);
    return getChunkRanges(this.ctx, namespace, ranges, opts);
  }

  async getChunksAt(namespace: string, chunks: ChunkRef[], opts: { shown?: boolean } = {}): Promise<StoredChunk[]> {
    this.check(namespace);
    return getChunksAt(this.ctx, namespace, chunks, opts);
  }

  async getHeadings(namespace: string, docId: string): Promise<Array<{ chunk_index: number; heading_path: string }>> {
    this.check(namespace);
    return getHeadings(this.ctx, namespace, docId);
  }

  async listDocIds(namespace: string): Promise<string[]> {
    this.check(namespace);
    return listDocIds(this.ctx, namespace);
  }

  async countChunks(namespace: string): Promise<number> {
    this.check(namespace);
    return this.ctx.tables.count(namespace);
  }

  async dropNamespace(namespace: string): Promise<void> {
    this.check(namespace);
    await this.writes.dropNamespace(namespace);
  }

  async optimize(namespace: string): Promise<void> {
    this.check(namespace);
    await this.writes.optimize(namespace);
  }

  /** The embedding signature recorded for `namespace`, or null when it has no table yet. */
  async getSignature(namespace: string): Promise<EmbeddingSignature | null> {
    this.check(namespace);
    return (await this.ctx.tables.get(namespace))?.signature ?? null;
  }

  async describeBuild(namespace: string): Promise<(IndexBuild & { generation: number }) | null> {
    this.check(namespace);
    const state = await this.ctx.tables.get(namespace);
    return state ? { ...state.build, generation: state.generation } : null;
  }

  async listDocJobs(namespace: string): Promise<DocJobRows[]> {
    this.check(namespace);
    return this.ctx.tables.read(namespace, [], async (state) => {
      const byKey = new Map<string, DocJobRows>();
      for await (const batch of state.table.query().select(['doc_id', 'source_job_id'])) {
        const docs = batch.getChild('doc_id'), jobs = batch.getChild('source_job_id');
        for (let i = 0; i < batch.numRows; i++) {
          const doc = String(docs?.get(i)), job = String(jobs?.get(i));
          const key = `${doc}\u0000${job}`;
          const e = byKey.get(key);
          if (e) e.chunks++;
          else byKey.set(key, { doc_id: doc, source_job_id: job, chunks: 1 });
        }
        await yieldToEventLoop(); // one batch at a time: a large table's scan never holds the loop
      }
      return [...byKey.values()];
    });
  }

  async exclusive<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
    this.check(namespace);
    try {
      return await this.ctx.gate.commit(namespace, fn);
    } finally {
      this.ctx.tables.evict(namespace);
    }
  }

  async dropGeneration(namespace: string, generation: number): Promise<void> {
    this.check(namespace);
    const name = generationTable(namespace, generation);
    if (generation === (await this.ctx.tables.generation(namespace))) {
      throw new AppError('internal_error', `generation ${generation} of ${namespace} is serving it; not dropped`);
    }
    await this.ctx.gate.commit(name, async () => {
      // Generation 0's name is the namespace's own: that cache entry is the serving table's, never closed here.
      if (generation !== 0) this.ctx.tables.evict(name, true);
      await this.writes.dropTable(name);
    });
  }

  /** Namespace table handles open in this process now (bounded by opts.memory.openTables). */
  get openTables(): number {
    return this.ctx.tables.size;
  }

  async probe(): Promise<void> {
    if (this.closed) throw new AppError('internal_error', 'the LanceDB namespace index is closed');
    await this.ctx.db.tableNames({ limit: 1 }); // one listing of the database root: reachable, credentials valid
  }

  /**
   * Block reads of the index read cache since start (object-cache.ts), by tier; null when the index is
   * read without it (local disk, gs://, LanceDB Cloud, or the cache turned off).
   */
  async readCacheStats(): Promise<{ memoryHits: number; diskHits: number; misses: number } | null> {
    return (await this.ctx.opts.readCache?.stats()) ?? null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.auto.drain();
    this.closed = true;
    this.ctx.tables.closeAll();
    this.ctx.db.close();
    await this.ctx.opts.readCache?.close();
  }

  private check(namespace: string): void {
    if (this.closed) throw new AppError('internal_error', 'the LanceDB namespace index is closed');
    assertNamespace(namespace);
  }

  /**
   * Run `fn` while this node holds the namespace's writer lease (without coordination: at once), so the
   * commits inside it (a group of documents, maintenance) need no new acquisition.
   * @throws AppError backend_unavailable (503, retryable) when another node keeps the lease too long
   */
  async withWriter<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
    this.check(namespace);
    return this.ctx.gate.withWriter(namespace, fn);
  }

  private deleteWhere(namespace: string, where: string): Promise<number> {
    this.check(namespace);
    return this.writes.deleteWhere(namespace, where);
  }
}
