// The default data plane: NamespaceIndex on LanceDB (DESIGN.md §2). One Lance table per namespace holds
// the chunks, their vectors and their pre-analysed tokens; BM25 comes from Lance's native FTS index on
// `tokens`, vector search is cosine (flat until the table passes a size threshold, then IVF_FLAT or
// IVF_HNSW_SQ by lance-ann.ts, built in optimize()), and ChunkFilter prefilters run inside the engine before ranking. Writes to one
// namespace are serialised in-process and, with coordination (issue 14, docs/scale-out.md), across nodes
// by the namespace's writer lease; reads run concurrently on cached table handles.

import type * as Lance from '@lancedb/lancedb';
import { cosine } from '../internal/cosine.ts';
import { AppError } from '../internal/errors.ts';
import type { Table as ArrowTable } from 'apache-arrow';
import {
  arrowToChunks, arrowToLayout, LAYOUT_COLUMNS, PACKED_SEARCH_COLUMNS, PACKED_TEXT_COLUMNS, rowsToArrow, sameSignature,
  SEARCH_COLUMNS, SEARCH_TEXT_COLUMNS, SHOWN_COLUMNS, STORED_COLUMNS,
} from './lance-arrow.ts';
import { hasPackColumn, PACK_COLUMN } from './lance-pack.ts';
import { ensureLayoutColumns, LAYOUT_COLUMN, storedColumnsOf, TERMS_COLUMN } from './lance-layout.ts';
import { annOf, ensureAnn, withAnnParams } from './lance-ann.ts';
import { ensureAttrIndexes } from './lance-attr-indexes.ts';
import { AutoOptimizer, ensureDocIdIndex, ensureFts, findFts, type TableState } from './lance-maintenance.ts';
import { KeyedCoalescer, KeyedMutex } from './lance-mutex.ts';
import { assertNamespace, filterToWhere, rangesToWhere, sqlString } from './lance-sql.ts';
import { attrColumnsOf, compileAttrExpr, ensureAttrColumns } from './lance-attributes.ts';
import { isNotFound, TableCache } from './lance-table-cache.ts';
import { CommitGate, type Coordination } from './lance-commit-gate.ts';
import type {
  ChunkFilter,
  ChunkRef,
  ChunkRecord,
  EmbeddingSignature,
  IndexHit,
  NamespaceIndex,
  ReadOptions,
  StoredChunk,
} from './namespace-index.ts';

type LanceModule = typeof Lance;

export interface LanceIndexOptions {
  /** Local directory or object-store URI (`s3://bucket/prefix`, `gs://…`). */
  uri: string;
  /** Object-store settings passed to lancedb.connect (endpoint, region, keys); AWS_* env vars also work. */
  storageOptions?: Record<string, string>;
  /** LanceDB Cloud/Enterprise (`db://` uri): API key, region, and the Enterprise host. */
  remote?: { apiKey: string; region?: string; hostOverride?: string };
  /**
   * How stale reads may be w.r.t. other processes' writes, in seconds, checked on the storage (a list
   * request on object stores). Default 0 (check every read). Ignored with `coordination`.
   */
  readConsistencySeconds?: number;
  /**
   * Several nodes on one index (issue 14): every commit and all maintenance run under the namespace's
   * writer lease, each commit bumps the namespace's counter in the control plane, and readers move their
   * handles to the latest version when the counter changed (read at most every `syncMs`, default 100).
   */
  coordination?: Coordination;
  /** Row count from which optimize() builds the vector index (lance-ann.ts). Default 50 000 (DESIGN.md §2). */
  annThreshold?: number;
  /** Rows per Arrow batch on write. Default 2 000: building a batch is synchronous (≈20 ms per 1 000 rows), so
   *  smaller batches keep the event loop free (issue 13); DESIGN.md §2 measured 26k rows/s at 10k. */
  writeBatchRows?: number;
  /** optimize() removes table versions older than this many seconds. Default 60. */
  cleanupGraceSeconds?: number;
  /** Run optimize() in the background after this many writes to a namespace; 0 = only when called. Default 50. */
  autoOptimizeEveryWrites?: number;
  /** Receives background-optimize failures. Default: process.emitWarning. */
  onMaintenanceError?: (namespace: string, err: unknown) => void;
}

/** How long a table found without the stored-layout columns is read as such before its schema is checked again (another process may add them). */
const LAYOUT_RECHECK_MS = 10_000;

const describeSignature = (s: EmbeddingSignature) => `${s.provider}/${s.model} (${s.dimension}-d)`;

/** BM25 lists are widened up to this many times their limit to take in a tie at the cut whole. */
const TIE_WIDEN = 4;

/**
 * Order of two hits with equal scores: by document id, then chunk index. The engine returns ties in
 * whatever order its threads finish, and a tie's rank feeds fusion, so without a stable key identical
 * searches on an unchanged namespace ranked and scored the same chunks differently.
 */
function byChunkKey(a: Pick<StoredChunk, 'doc_id' | 'chunk_index'>, b: Pick<StoredChunk, 'doc_id' | 'chunk_index'>): number {
  return (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0) || a.chunk_index - b.chunk_index;
}

/**
 * Open (or create on first write) the LanceDB database at `opts.uri`. Sets LANCEDB_LOG=error (unless
 * already set) before the native module is first loaded, since its logger reads the variable at load.
 */
export async function openLanceIndex(opts: LanceIndexOptions): Promise<LanceNamespaceIndex> {
  process.env.LANCEDB_LOG ??= 'error';
  const lancedb: LanceModule = await import('@lancedb/lancedb');
  const db = await lancedb.connect(opts.uri, {
    storageOptions: opts.storageOptions,
    readConsistencyInterval: opts.coordination ? undefined : (opts.readConsistencySeconds ?? 0),
    ...opts.remote,
  });
  return new LanceNamespaceIndex(lancedb, db, opts);
}

export class LanceNamespaceIndex implements NamespaceIndex {
  private readonly tables: TableCache;
  private readonly gate: CommitGate;
  /** Where failures of background or non-fatal index upkeep go (opts.onMaintenanceError, else a process warning). */
  private readonly onMaintenanceError: (namespace: string, err: unknown) => void;
  private readonly maintenance = new KeyedMutex();
  private readonly refresh = new KeyedCoalescer();
  private readonly auto: AutoOptimizer;
  private closed = false;

  constructor(
    private readonly lancedb: LanceModule,
    private readonly db: Lance.Connection,
    private readonly opts: LanceIndexOptions,
  ) {
    this.tables = new TableCache(db, opts.coordination?.versions, opts.coordination?.syncMs ?? 100);
    this.gate = new CommitGate(this.tables, opts.coordination);
    this.onMaintenanceError =
      opts.onMaintenanceError ??
      ((ns: string, err: unknown) => process.emitWarning(`index maintenance of ${ns} failed: ${String(err)}`, 'LanceIndexWarning'));
    this.auto = new AutoOptimizer(opts.autoOptimizeEveryWrites ?? 50, (ns) => this.optimize(ns), this.onMaintenanceError);
  }

  async addChunks(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void> {
    this.check(namespace);
    if (!Number.isInteger(signature.dimension) || signature.dimension <= 0) {
      throw new AppError('internal_error', `invalid embedding dimension ${signature.dimension}`);
    }
    const bad = rows.find((r) => r.vector.length !== signature.dimension);
    if (bad) throw new AppError('internal_error', `chunk ${bad.id}: vector has ${bad.vector.length} dimensions, signature says ${signature.dimension}`);
    await this.commit(namespace, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.writeRows(namespace, rows, signature);
        } catch (err) {
          // A cached handle may be stale (another process dropped or recreated the table): a "not
          // found" or a signature mismatch is re-checked once on a freshly opened table.
          const retriable = isNotFound(err) || (err instanceof AppError && err.code === 'embedder_mismatch');
          if (err instanceof AppError && !retriable) throw err;
          this.tables.evict(namespace);
          if (attempt > 1 || !retriable) throw err;
        }
      }
    });
    if (rows.length > 0) this.auto.noteWrite(namespace);
  }

  async deleteDocument(namespace: string, docId: string): Promise<number> {
    return this.deleteWhere(namespace, `doc_id = ${sqlString(docId)}`);
  }

  async deleteByJob(namespace: string, jobId: string): Promise<number> {
    return this.deleteWhere(namespace, `source_job_id = ${sqlString(jobId)}`);
  }

  async deleteByJobs(namespace: string, jobIds: string[]): Promise<number> {
    if (jobIds.length === 0) return 0;
    return this.deleteWhere(namespace, `source_job_id IN (${jobIds.map(sqlString).join(', ')})`);
  }

  /**
   * Rows appended after the FTS index was built are found by a flat scan whose BM25 statistics differ
   * from the index's (a just-ingested document scored 0.0001 where it deserved 0.7). Lance's optimize()
   * folds them into the index (with compaction of the small fragments): measured on this machine 0.4–0.9 s
   * after +50 rows at 20k rows, 0.9–2.5 s at 100k (.tmp spike, issue 11). Jobs finishing together share one run.
   */
  async refreshLexical(namespace: string): Promise<void> {
    this.check(namespace);
    await this.refresh.run(namespace, () => this.withWriter(namespace, () =>
      this.maintenance.run(namespace, () =>
        this.tables.read(namespace, undefined, async (state) => {
          if (!state.fts) state.fts = await findFts(state.table);
          const stats = state.fts ? await state.table.indexStats(state.fts) : undefined;
          if (stats && stats.numUnindexedRows === 0) return;
          await this.commit(namespace, async () => {
            await state.table.optimize({ cleanupOlderThan: new Date(Date.now() - (this.opts.cleanupGraceSeconds ?? 60) * 1000) });
            await ensureFts(this.lancedb, state);
          });
        }),
      ),
    ));
  }

  async vectorSearch(namespace: string, vector: Float32Array, limit: number, filter?: ChunkFilter, opts: ReadOptions = {}): Promise<IndexHit[]> {
    this.check(namespace);
    const f = filterToWhere(filter);
    if (f.empty || limit <= 0) return [];
    return this.tables.read(namespace, [], async (state) => {
      if (vector.length !== state.signature.dimension) {
        throw new AppError(
          'embedder_mismatch',
          `namespace ${namespace} was indexed with ${describeSignature(state.signature)}; the query vector has ${vector.length} dimensions`,
          { namespace, indexed: state.signature, queryDimension: vector.length },
        );
      }
      // Prefilter is LanceDB's default for vectorSearch (only postfilter() turns it off): never call it.
      if (state.ann === undefined) state.ann = annOf(await state.table.listIndices());
      let q = withAnnParams(state.table.vectorSearch(vector).column('vector').distanceType('cosine'), state.ann, limit)
        .select([...(await this.searchColumns(state, opts)), '_distance'])
        .limit(limit)
        .withRowId();
      const where = await this.whereFor(state, f.where, filter);
      if (where === false) return [];
      if (where) q = q.where(where);
      // Without refineFactor an IVF_HNSW_SQ `_distance` is the quantised one (off by 0.27 on average at
      // 100k, bench/ann-params.ts): score by the exact cosine of the returned vectors instead (the same
      // order as refineFactor(1), without its second read of the vectors; for IVF_FLAT and flat search it
      // equals 1 − _distance). A zero vector scores 0.
      const hits = (await this.searchRows(state, await q.toArrow(), '_distance', opts))
        .map(({ chunk, raw, vector: v, tokens, termHashes, pairHashes }) => ({ chunk, score: v ? (cosine(vector, v) ?? 0) : 1 - raw, vector: v, tokens, termHashes, pairHashes }))
        .sort((a, b) => b.score - a.score || byChunkKey(a.chunk, b.chunk));
      return this.tokensForUnhashed(state, await this.textForUnflagged(state, hits));
    });
  }

  async bm25Search(namespace: string, queryTokens: string[], limit: number, filter?: ChunkFilter, boosts?: ReadonlyMap<string, number>, opts: ReadOptions = {}): Promise<IndexHit[]> {
    this.check(namespace);
    const f = filterToWhere(filter);
    const tokens = queryTokens.flatMap((t) => t.split(/\s+/)).filter((t) => t.length > 0);
    if (f.empty || limit <= 0 || tokens.length === 0) return [];
    return this.tables.read(namespace, [], async (state) => {
      if (!state.fts) state.fts = await findFts(state.table);
      if (!state.fts) return []; // no rows were ever written
      // A MatchQuery is tokenised by the index's whitespace tokenizer and never parsed as query syntax,
      // so tokens such as AND, "-", "a:b" or '"' match literally. Operator OR = classic BM25 disjunction.
      const match = this.matchQuery(tokens, boosts);
      // FTS filters are prefilters by default in LanceDB 0.37 (no API to change it; covered by a test).
      const columns = await this.searchColumns(state, opts);
      const where = await this.whereFor(state, f.where, filter);
      if (where === false) return [];
      const search = async (n: number) => {
        let q = state.table.query().fullTextSearch(match).select([...columns, '_score']).limit(n).withRowId();
        if (where) q = q.where(where);
        return this.searchRows(state, await q.toArrow(), '_score', opts);
      };
      // Which of several chunks tied at the cut the engine keeps changes from one search to the next. One
      // row past the limit tells whether the list stops inside a tie; then more are read until the tie is
      // whole (at most TIE_WIDEN times the limit), so the stable sort, not the engine, picks the chunks kept.
      let n = limit + 1;
      let rows = await search(n);
      while (rows.length === n && rows[n - 1].raw === rows[limit - 1].raw && n < limit * TIE_WIDEN) {
        n = Math.min(n * 2, limit * TIE_WIDEN);
        rows = await search(n);
      }
      const hits = rows.slice(0, limit).map(({ chunk, raw, vector, tokens, termHashes, pairHashes }) => ({ chunk, score: raw, vector, tokens, termHashes, pairHashes }));
      return this.tokensForUnhashed(state, await this.textForUnflagged(state, hits));
    });
  }

  async getChunks(namespace: string, docId: string, from: number, to: number): Promise<StoredChunk[]> {
    this.check(namespace);
    if (!Number.isInteger(from) || !Number.isInteger(to)) throw new AppError('internal_error', `chunk range must be integers, got ${from}..${to}`);
    if (to < from) return [];
    const where = `doc_id = ${sqlString(docId)} AND chunk_index >= ${from} AND chunk_index <= ${to}`;
    return this.tables.read(namespace, [], async (state) =>
      arrowToChunks(await state.table.query().where(where).select([...STORED_COLUMNS]).toArrow())
        .map((r) => r.chunk)
        .sort((a, b) => a.chunk_index - b.chunk_index),
    );
  }

  async getChunkRanges(namespace: string, ranges: Array<{ docId: string; from: number; to: number }>, opts: ReadOptions = {}): Promise<StoredChunk[]> {
    this.check(namespace);
    for (const r of ranges) {
      if (!Number.isInteger(r.from) || !Number.isInteger(r.to)) throw new AppError('internal_error', `chunk range must be integers, got ${r.from}..${r.to}`);
    }
    const wanted = ranges.filter((r) => r.to >= r.from);
    if (wanted.length === 0) return [];
    const text = opts.text !== false;
    // Grouped ranges behind a leading doc_id IN list (lance-sql.ts rangesToWhere): the doc_id BTREE index
    // selects the rows and few OR terms are evaluated; rows outside the ranges are dropped before decoding.
    const { where, keep } = rangesToWhere(wanted);
    return this.tables.read(namespace, [], async (state) => {
      // A layout read returns row addresses too: the text of the chunks shown is then taken by address.
      const rows = text
        ? await state.table.query().where(where).select([...STORED_COLUMNS]).toArrow()
        : await state.table.query().where(where).select([...LAYOUT_COLUMNS]).withRowId().toArrow();
      return text ? arrowToChunks(rows, undefined, keep).map((r) => r.chunk) : arrowToLayout(rows, keep);
    });
  }

  async getChunksAt(namespace: string, chunks: ChunkRef[], opts: { shown?: boolean } = {}): Promise<StoredChunk[]> {
    this.check(namespace);
    if (chunks.length === 0) return [];
    const key = (docId: string, chunkIndex: number) => `${docId}\u0000${chunkIndex}`;
    const wanted = new Set(chunks.map((c) => key(c.doc_id, c.chunk_index)));
    return this.tables.read(namespace, [], async (state) => {
      const found = new Map<string, StoredChunk>();
      const hinted = [...new Set(chunks.flatMap((c) => (c.rowId === undefined ? [] : [c.rowId])))];
      if (hinted.length > 0) {
        try {
          const rows = await state.table.takeRowIds(hinted).select([...(opts.shown ? SHOWN_COLUMNS : STORED_COLUMNS)]).toArrow();
          for (const { chunk } of arrowToChunks(rows, undefined, (d, i) => wanted.has(key(d, i)))) found.set(key(chunk.doc_id, chunk.chunk_index), chunk);
        } catch {
          // Addresses of another table version (compacted since the search read them): read by range below.
        }
      }
      const rest = chunks.filter((c) => !found.has(key(c.doc_id, c.chunk_index)));
      for (const chunk of await this.fullRows(state, rest)) found.set(key(chunk.doc_id, chunk.chunk_index), chunk);
      return [...found.values()];
    });
  }

  async listDocIds(namespace: string): Promise<string[]> {
    this.check(namespace);
    return this.tables.read(namespace, [], async (state) => {
      const ids = new Set<string>();
      for await (const batch of state.table.query().select(['doc_id'])) {
        const col = batch.getChild('doc_id');
        if (col) for (const v of col) ids.add(v as string);
      }
      return [...ids].sort();
    });
  }

  async countChunks(namespace: string): Promise<number> {
    this.check(namespace);
    return this.tables.count(namespace);
  }

  async dropNamespace(namespace: string): Promise<void> {
    this.check(namespace);
    await this.commit(namespace, async () => {
      this.tables.evict(namespace, true);
      this.auto.forget(namespace);
      try {
        await this.db.dropTable(namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }

  async optimize(namespace: string): Promise<void> {
    this.check(namespace);
    const graceMs = (this.opts.cleanupGraceSeconds ?? 60) * 1000;
    await this.withWriter(namespace, () => this.maintenance.run(namespace, () =>
      this.tables.read(namespace, undefined, async (state) => {
        const rows = await state.table.countRows();
        // Long (≈30 s per 100k rows): outside the in-process write lock (Lance commits it next to this
        // process's concurrent appends), but under the writer lease: other nodes wait for it.
        if (await this.commit(namespace, () => ensureAnn(this.lancedb, state.table, rows, state.signature.dimension, this.opts.annThreshold ?? 50_000), false)) state.ann = undefined;
        await this.commit(namespace, async () => {
          await ensureDocIdIndex(this.lancedb, state.table, rows);
          for (const err of (await ensureAttrIndexes(this.lancedb, state.table)).errors) this.onMaintenanceError(namespace, err);
          await state.table.optimize({ cleanupOlderThan: new Date(Date.now() - graceMs) });
          await ensureFts(this.lancedb, state); // also repairs a crash between the first add and the index build
        });
      }),
    ));
  }

  /**
   * The BM25 disjunction of `tokens`. Tokens with a boost other than 1 go into their own MatchQuery with
   * that boost, combined by a BooleanQuery of SHOULD clauses (scores add up, as in Lucene).
   */
  private matchQuery(tokens: string[], boosts?: ReadonlyMap<string, number>): Lance.FullTextQuery {
    const byBoost = new Map<number, string[]>();
    for (const t of tokens) {
      const b = boosts?.get(t) ?? 1;
      byBoost.set(b, [...(byBoost.get(b) ?? []), t]);
    }
    const clause = (ts: string[], boost: number) => new this.lancedb.MatchQuery(ts.join(' '), 'tokens', { operator: this.lancedb.Operator.Or, boost });
    if (byBoost.size === 1) return clause(tokens, [...byBoost.keys()][0]);
    return new this.lancedb.BooleanQuery([...byBoost].map(([b, ts]) => [this.lancedb.Occur.Should, clause(ts, b)] as [Lance.Occur, Lance.FullTextQuery]));
  }

  /** The embedding signature recorded for `namespace`, or null when it has no table yet. */
  async getSignature(namespace: string): Promise<EmbeddingSignature | null> {
    this.check(namespace);
    return (await this.tables.get(namespace))?.signature ?? null;
  }

  async probe(): Promise<void> {
    if (this.closed) throw new AppError('internal_error', 'the LanceDB namespace index is closed');
    await this.db.tableNames({ limit: 1 }); // one listing of the database root: reachable, credentials valid
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.auto.drain();
    this.closed = true;
    this.tables.closeAll();
    this.db.close();
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
    return this.gate.withWriter(namespace, fn);
  }

  private commit<T>(namespace: string, fn: () => Promise<T>, serialise = true): Promise<T> {
    return this.gate.commit(namespace, fn, serialise);
  }

  /**
   * Columns of a search read (the score aside). A table created with the packed column (lance-pack.ts) is
   * read as the document id and the pack (plus the text a reranker reads with ReadOptions.lean, or the full
   * rows); any other table as the separate columns of its format, with `vector`: the stored layout and
   * bibliography flag when the table has them (tables written before them do not), the text unless the
   * caller asks for none (ReadOptions.text false; with ReadOptions.lean only the text a reranker reads), and
   * the candidates' terms for coverage: their stored hashes, or the `tokens` string in a table without the
   * hash column.
   */
  private async searchColumns(state: TableState, opts: ReadOptions): Promise<readonly string[]> {
    const complete = state.layoutColumns && state.termsColumn;
    if (state.layoutColumns === undefined || (!complete && Date.now() - (state.layoutCheckedAt ?? 0) > LAYOUT_RECHECK_MS)) {
      const schema = await state.table.schema();
      const has = storedColumnsOf(schema);
      state.layoutColumns = has.layout;
      state.termsColumn = has.terms;
      state.packColumn = hasPackColumn(schema);
      state.layoutCheckedAt = Date.now();
    }
    if (state.packColumn) {
      if (opts.text === false) return PACKED_SEARCH_COLUMNS;
      return opts.lean ? PACKED_TEXT_COLUMNS : [...STORED_COLUMNS, PACK_COLUMN];
    }
    return [...this.columnsOfRows(state, opts), 'vector'];
  }

  /** The separate columns a search read takes of a row without a pack (searchColumns; `vector` aside). */
  private columnsOfRows(state: TableState, opts: ReadOptions): readonly string[] {
    const terms = state.termsColumn ? TERMS_COLUMN : 'tokens';
    if (!state.layoutColumns) return [...STORED_COLUMNS, terms];
    if (opts.text === false) return [...SEARCH_COLUMNS, terms];
    return opts.lean ? [...SEARCH_TEXT_COLUMNS, terms] : [...STORED_COLUMNS, LAYOUT_COLUMN, terms];
  }

  /**
   * Decode a search read. Rows of a packed table that have no pack (written by an older process during a
   * rolling upgrade) are read again by row address with the separate columns, keep their score, and join
   * the others in score order (`_distance` ascending, `_score` descending). If that read fails (the
   * addresses belong to a version compacted meanwhile), those rows are left out of this search and the
   * failure is reported as a maintenance warning.
   */
  private async searchRows(state: TableState, result: ArrowTable, scoreColumn: '_distance' | '_score', opts: ReadOptions) {
    const unpacked: Array<{ rowId: bigint; raw: number }> = [];
    const rows = arrowToChunks(result, scoreColumn, undefined, unpacked);
    if (unpacked.length > 0) {
      try {
        const again = await state.table.takeRowIds(unpacked.map((u) => u.rowId)).select([...this.columnsOfRows(state, opts), 'vector']).withRowId().toArrow();
        const raw = new Map(unpacked.map((u) => [u.rowId, u.raw]));
        for (const row of arrowToChunks(again)) rows.push({ ...row, raw: raw.get(row.chunk.rowId!) ?? Number.NaN });
      } catch (err) {
        this.onMaintenanceError(state.table.name, err);
      }
    }
    // Sorted either way: the engine's order of equal scores changes from one search to the next.
    return rows.sort((a, b) => (scoreColumn === '_distance' ? a.raw - b.raw : b.raw - a.raw) || byChunkKey(a.chunk, b.chunk));
  }

  /**
   * Rows read without their terms that store no term hashes (written before the column existed, in a table
   * that has it since) get their `tokens` string in one more read by row address, so coverage can scan it.
   * @returns `hits`, those hits with `tokens` set
   */
  private async tokensForUnhashed(state: TableState, hits: IndexHit[]): Promise<IndexHit[]> {
    const bare = hits.filter((h) => h.termHashes === undefined && h.tokens === undefined);
    if (bare.length === 0) return hits;
    const byId = async () => state.table.query().where(`id IN (${bare.map((h) => sqlString(h.chunk.id)).join(', ')})`).select(['id', 'tokens']).toArrow();
    let rows;
    try {
      rows = bare.every((h) => h.chunk.rowId !== undefined)
        ? await state.table.takeRowIds(bare.map((h) => h.chunk.rowId!)).select(['id', 'tokens']).toArrow()
        : await byId();
    } catch {
      // Addresses of another table version (compacted meanwhile): read by id instead.
      rows = await byId();
    }
    const ids = rows.getChild('id');
    const tokens = rows.getChild('tokens');
    const found = new Map<string, string>();
    for (let i = 0; i < rows.numRows; i++) found.set(ids?.get(i) as string, tokens?.get(i) as string);
    for (const h of bare) {
      const t = found.get(h.chunk.id);
      if (t !== undefined) h.tokens = t;
    }
    return hits;
  }

  /** The full rows (text included) of these chunks, read by their (doc_id, chunk_index) in one query; [] for none. */
  private async fullRows(state: TableState, chunks: ChunkRef[]): Promise<StoredChunk[]> {
    if (chunks.length === 0) return [];
    const { where, keep } = rangesToWhere(chunks.map((c) => ({ docId: c.doc_id, from: c.chunk_index, to: c.chunk_index })));
    return arrowToChunks(await state.table.query().where(where).select([...STORED_COLUMNS]).toArrow(), undefined, keep).map(({ chunk }) => chunk);
  }

  /**
   * Rows read without text that store no bibliography flag (written before it existed, in a table that
   * has the column since) get their text in one more read, so ranking can compute the flag from it.
   * @returns `hits`, those rows' chunks replaced by full rows
   */
  private async textForUnflagged(state: TableState, hits: IndexHit[]): Promise<IndexHit[]> {
    const bare = hits.filter((h) => h.chunk.textOmitted && h.chunk.bibliography === undefined);
    if (bare.length === 0) return hits;
    const byId = new Map((await this.fullRows(state, bare.map((h) => h.chunk))).map((chunk) => [chunk.id, chunk]));
    for (const h of bare) {
      const row = byId.get(h.chunk.id);
      if (row) h.chunk = { ...row, ...(h.chunk.layout ? { layout: h.chunk.layout } : {}), ...(h.chunk.rowId !== undefined ? { rowId: h.chunk.rowId } : {}) };
    }
    return hits;
  }

  /**
   * The full prefilter: the doc-id part plus the compiled attribute expression (compiled against the
   * table's current attribute columns, so a name no row carries yet matches nothing).
   * @returns false when the filter can match nothing; undefined when nothing filters
   */
  private async whereFor(state: TableState, docWhere: string | undefined, filter?: ChunkFilter): Promise<string | undefined | false> {
    if (!filter?.attributes) return docWhere;
    const attr = compileAttrExpr(filter.attributes, attrColumnsOf(await state.table.schema()));
    if (attr === 'FALSE') return false;
    if (attr === 'TRUE') return docWhere;
    return docWhere ? `${docWhere} AND ${attr}` : attr;
  }

  /** One write attempt (caller holds the namespace write lock). */
  private async writeRows(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void> {
    const state = (await this.tables.get(namespace)) ?? (await this.tables.create(namespace, signature));
    if (!sameSignature(state.signature, signature)) {
      throw new AppError(
        'embedder_mismatch',
        `namespace ${namespace} was indexed with ${describeSignature(state.signature)}; ` +
          `refusing chunks embedded with ${describeSignature(signature)}`,
        { namespace, indexed: state.signature, requested: signature },
      );
    }
    if (rows.length === 0) return;
    const batchRows = this.opts.writeBatchRows ?? 2_000;
    state.packColumn = hasPackColumn(await ensureLayoutColumns(state.table));
    state.layoutColumns = true;
    state.termsColumn = true;
    const schema = await ensureAttrColumns(state.table, rows);
    for (let i = 0; i < rows.length; i += batchRows) {
      await state.table.add(rowsToArrow(rows.slice(i, i + batchRows), schema));
    }
    await ensureFts(this.lancedb, state);
  }

  private async deleteWhere(namespace: string, where: string): Promise<number> {
    this.check(namespace);
    const deleted = await this.commit(namespace, () =>
      this.tables.read(namespace, 0, async (state) => {
        const { numDeletedRows } = await state.table.delete(where);
        if (numDeletedRows > 0) await ensureFts(this.lancedb, state);
        return numDeletedRows;
      }),
    );
    if (deleted > 0) this.auto.noteWrite(namespace);
    return deleted;
  }
}
