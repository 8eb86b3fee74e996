// Everything that commits a new version of a LanceDB namespace table: appends (in Arrow batches, creating
// the table and its columns as needed), deletes, drops, and the maintenance runs (optimize: the vector,
// doc_id and attribute indexes, compaction, the FTS index; refreshLexical: the rows appended since the FTS
// index was built). Each commit goes through the namespace's CommitGate (serialised in this process and,
// with coordination, under the writer lease); maintenance of one namespace runs one at a time.
import { AppError } from '../internal/errors.ts';
import { rowsToArrow, sameSignature } from './lance-arrow.ts';
import { ensureAnn } from './lance-ann.ts';
import { ensureAttrIndexes } from './lance-attr-indexes.ts';
import { ensureAttrColumns } from './lance-attributes.ts';
import { describeSignature, type LanceContext } from './lance-context.ts';
import { ensureLayoutColumns } from './lance-layout.ts';
import { ensureDocIdIndex, ensureFts, findFts, type AutoOptimizer, type TableState } from './lance-maintenance.ts';
import { KeyedCoalescer, KeyedMutex } from './lance-mutex.ts';
import { hasPackColumn } from './lance-pack.ts';
import { sqlString } from './lance-sql.ts';
import { isNotFound } from './lance-table-cache.ts';
import type { ChunkRecord, EmbeddingSignature } from './namespace-index.ts';

/**
 * Share of the FTS-indexed rows that may stay outside the index after refreshLexical(). LanceDB 0.37 scores
 * the rows outside the index by its scan with the statistics of the whole table (a row scores exactly what
 * it scores once folded in: measured on the 100k-row bench namespace and on a 20-row index with 500 rows
 * outside), but the indexed rows keep the index's statistics: with 20% of the rows outside, an idf differs
 * by at most ≈ 5% (ln((N+1)/df) against ln((1.2 N+1)/df)); with 25 times the indexed rows outside, one
 * indexed row scored 9.2 instead of 13.6. docs/decisions/2026-11-29-ingest-throughput.md.
 */
export const LEXICAL_SCAN_SHARE = 0.2;

/**
 * Indexed rows below which every refresh folds: a fold costs 0.4–0.9 s at 20k rows (quiet machine), and a
 * namespace whose rows are all indexed ranks by its content alone, whatever the history of its commits
 * (an online reindex, test/reindex.test.ts, expects the same hits from the same documents).
 */
export const LEXICAL_SCAN_FROM_ROWS = 20_000;

/**
 * Whether the rows outside the FTS index should be folded in now: always below `fromRows`
 * indexed rows, else when more than `maxRows` of them are outside (the scan costs BM25 queries ≈ 10 ms
 * per 1 000 rows on a loaded 2-core machine) or more than LEXICAL_SCAN_SHARE of the indexed rows.
 */
export function lexicalFoldDue(stats: { numIndexedRows: number; numUnindexedRows: number }, maxRows: number, fromRows = LEXICAL_SCAN_FROM_ROWS): boolean {
  if (stats.numUnindexedRows === 0) return false;
  if (stats.numIndexedRows < fromRows) return true;
  return stats.numUnindexedRows > Math.min(maxRows, LEXICAL_SCAN_SHARE * stats.numIndexedRows);
}

/** The commits of one LanceNamespaceIndex; the caller has checked the namespace name and that the index is open. */
/** @throws AppError internal_error when the signature's dimension is invalid or a row's vector does not have it */
function checkVectors(rows: ChunkRecord[], signature: EmbeddingSignature): void {
  if (!Number.isInteger(signature.dimension) || signature.dimension <= 0) {
    throw new AppError('internal_error', `invalid embedding dimension ${signature.dimension}`);
  }
  const bad = rows.find((r) => r.vector.length !== signature.dimension);
  if (bad) throw new AppError('internal_error', `chunk ${bad.id}: vector has ${bad.vector.length} dimensions, signature says ${signature.dimension}`);
}

export class LanceWrites {
  private readonly maintenance = new KeyedMutex();
  private readonly refresh = new KeyedCoalescer();

  /** @param auto counts writes per namespace and runs optimize in the background after enough of them */
  constructor(
    private readonly ctx: LanceContext,
    private readonly auto: AutoOptimizer,
  ) {}

  async addChunks(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void> {
    checkVectors(rows, signature);
    await this.commit(namespace, () => this.retryFresh(namespace, () => this.writeRows(namespace, rows, signature)));
    if (rows.length > 0) this.auto.noteWrite(namespace);
  }

  /**
   * Replace every row of `docIds` by `rows` in ONE Lance commit (a merge on `id` that rewrites matching
   * rows, inserts the others and deletes the documents' rows the new version lacks): a reader of any table
   * version sees each document whole in its old or its new version, never both and never neither.
   * @returns old rows removed or rewritten
   */
  async replaceDocuments(namespace: string, docIds: string[], rows: ChunkRecord[], signature: EmbeddingSignature): Promise<number> {
    checkVectors(rows, signature);
    if (docIds.length === 0 || rows.length === 0) throw new AppError('internal_error', 'replaceDocuments needs documents and their rows');
    const replaced = await this.commit(namespace, () => this.retryFresh(namespace, async () => {
      const { state, schema } = await this.prepare(namespace, rows, signature);
      // One Arrow batch, since the merge must be one commit (building it is ≈20 ms per 1 000 rows).
      const r = await state.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll()
        .whenNotMatchedBySourceDelete({ where: `doc_id IN (${docIds.map(sqlString).join(', ')})` })
        .execute(rowsToArrow(rows, schema!));
      await ensureFts(this.ctx.lancedb, state);
      return Number(r.numUpdatedRows) + Number(r.numDeletedRows);
    }));
    this.auto.noteWrite(namespace);
    return replaced;
  }

  /**
   * Run one write; a cached handle may be stale (another process dropped or recreated the table): a "not
   * found" or a signature mismatch is re-checked once on a freshly opened table.
   */
  private async retryFresh<T>(namespace: string, write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        const retriable = isNotFound(err) || (err instanceof AppError && err.code === 'embedder_mismatch');
        if (err instanceof AppError && !retriable) throw err;
        this.ctx.tables.evict(namespace);
        if (attempt > 1 || !retriable) throw err;
      }
    }
  }

  async deleteWhere(namespace: string, where: string): Promise<number> {
    const deleted = await this.commit(namespace, () =>
      this.ctx.tables.read(namespace, 0, async (state) => {
        const { numDeletedRows } = await state.table.delete(where);
        if (numDeletedRows > 0) await ensureFts(this.ctx.lancedb, state);
        return numDeletedRows;
      }),
    );
    if (deleted > 0) this.auto.noteWrite(namespace);
    return deleted;
  }

  /** Drop the namespace's table of every generation (the serving one, older ones, one being built). */
  async dropNamespace(namespace: string): Promise<void> {
    await this.commit(namespace, async () => {
      this.ctx.tables.evict(namespace, true);
      this.auto.forget(namespace);
      for (const name of await this.ctx.tables.allTables(namespace)) await this.dropTable(name);
    });
  }

  /** Drop one Lance table by its own name (a generation no longer served); absent is fine. */
  async dropTable(name: string): Promise<void> {
    try {
      await this.ctx.db.dropTable(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * Make the rows appended since the FTS index was built rank as indexed rows do
   * (LanceNamespaceIndex.refreshLexical): fold them in when lexicalFoldDue() says so, else leave them to
   * the engine's scan.
   */
  async refreshLexical(namespace: string): Promise<void> {
    await this.refresh.run(namespace, () => this.ctx.gate.withWriter(namespace, () =>
      this.maintenance.run(namespace, () =>
        this.ctx.tables.read(namespace, undefined, async (state) => {
          if (!state.fts) state.fts = await findFts(state.table);
          const stats = state.fts ? await state.table.indexStats(state.fts) : undefined;
          if (stats && !lexicalFoldDue(stats, this.ctx.opts.lexicalScanRows ?? 4_000, this.ctx.opts.lexicalScanFromRows)) return;
          await this.commit(namespace, async () => {
            await state.table.optimize({ cleanupOlderThan: new Date(Date.now() - (this.ctx.opts.cleanupGraceSeconds ?? 60) * 1000) });
            await ensureFts(this.ctx.lancedb, state);
          });
        }),
      ),
    ));
  }

  async optimize(namespace: string): Promise<void> {
    const graceMs = (this.ctx.opts.cleanupGraceSeconds ?? 60) * 1000;
    await this.ctx.gate.withWriter(namespace, () => this.maintenance.run(namespace, () =>
      this.ctx.tables.read(namespace, undefined, async (state) => {
        const rows = await state.table.countRows();
        // Long (≈30 s per 100k rows): outside the in-process write lock (Lance commits it next to this
        // process's concurrent appends), but under the writer lease: other nodes wait for it.
        if (await this.commit(namespace, () => ensureAnn(this.ctx.lancedb, state.table, rows, state.signature.dimension, this.ctx.opts.annThreshold ?? 50_000), false)) state.ann = undefined;
        await this.commit(namespace, async () => {
          await ensureDocIdIndex(this.ctx.lancedb, state.table, rows);
          for (const err of (await ensureAttrIndexes(this.ctx.lancedb, state.table)).errors) this.ctx.onMaintenanceError(namespace, err);
          await state.table.optimize({ cleanupOlderThan: new Date(Date.now() - graceMs) });
          await ensureFts(this.ctx.lancedb, state); // also repairs a crash between the first add and the index build
        });
      }),
    ));
  }

  /**
   * The table ready for `rows` (created with `signature` on first use; layout and attribute columns added)
   * and the Arrow schema to write them with. Caller holds the namespace write lock.
   * @throws AppError embedder_mismatch when the table was built with another embedder
   */
  private async prepare(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<{ state: TableState; schema?: Awaited<ReturnType<typeof ensureAttrColumns>> }> {
    const state = (await this.ctx.tables.get(namespace)) ?? (await this.ctx.tables.create(namespace, signature));
    if (!sameSignature(state.signature, signature)) {
      throw new AppError(
        'embedder_mismatch',
        `namespace ${namespace} was indexed with ${describeSignature(state.signature)}; ` +
          `refusing chunks embedded with ${describeSignature(signature)}`,
        { namespace, indexed: state.signature, requested: signature },
      );
    }
    if (rows.length === 0) return { state };
    state.packColumn = hasPackColumn(await ensureLayoutColumns(state.table));
    state.layoutColumns = true;
    state.termsColumn = true;
    return { state, schema: await ensureAttrColumns(state.table, rows) };
  }

  /** One write attempt (caller holds the namespace write lock). */
  private async writeRows(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void> {
    const { state, schema } = await this.prepare(namespace, rows, signature);
    if (!schema) return;
    const batchRows = this.ctx.opts.writeBatchRows ?? 2_000;
    for (let i = 0; i < rows.length; i += batchRows) {
      await state.table.add(rowsToArrow(rows.slice(i, i + batchRows), schema));
    }
    await ensureFts(this.ctx.lancedb, state);
  }

  private commit<T>(namespace: string, fn: () => Promise<T>, serialise = true): Promise<T> {
    return this.ctx.gate.commit(namespace, fn, serialise);
  }
}
