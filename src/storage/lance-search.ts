// Ranked retrieval from a LanceDB namespace table: the vector search (cosine, through the ANN index once
// lance-ann.ts built one) and the BM25 search (Lance's FTS index on the pre-analysed `tokens`), each with
// its prefilter, the columns its table format stores, and an order of tied scores that does not change
// from one search to the next.
import type * as Lance from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import { cosine } from '../internal/cosine.ts';
import { arrowToChunks, PACKED_SEARCH_COLUMNS, PACKED_TEXT_COLUMNS, SEARCH_COLUMNS, SEARCH_TEXT_COLUMNS, STORED_COLUMNS } from './lance-arrow.ts';
import { annOf, withAnnParams } from './lance-ann.ts';
import { attrColumnsOf, compileAttrExpr } from './lance-attributes.ts';
import type { LanceContext, LanceModule } from './lance-context.ts';
import { LAYOUT_COLUMN, storedColumnsOf, TERMS_COLUMN } from './lance-layout.ts';
import { findFts, type TableState } from './lance-maintenance.ts';
import { hasPackColumn, PACK_COLUMN } from './lance-pack.ts';
import { textForUnflagged, tokensForUnhashed } from './lance-row-reads.ts';
import { filterToWhere } from './lance-sql.ts';
import type { ChunkFilter, IndexHit, ReadOptions, StoredChunk } from './namespace-index.ts';

/** How long a table found without the stored-layout columns is read as such before its schema is checked again (another process may add them). */
const LAYOUT_RECHECK_MS = 10_000;

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

export async function vectorSearch(ctx: LanceContext, namespace: string, vector: Float32Array, limit: number, filter?: ChunkFilter, opts: ReadOptions = {}): Promise<IndexHit[]> {
  const f = filterToWhere(filter);
  if (f.empty || limit <= 0) return [];
  return ctx.tables.read(namespace, [], async (state) => {
    // Built by an embedder of another dimension (reported as needing a reindex, docs/reindex.md): its vectors
    // cannot be compared with the query's, so the vector half finds nothing and BM25 answers alone.
    if (vector.length !== state.signature.dimension) return [];
    // Prefilter is LanceDB's default for vectorSearch (only postfilter() turns it off): never call it.
    if (state.ann === undefined) state.ann = annOf(await state.table.listIndices());
    let q = withAnnParams(state.table.vectorSearch(vector).column('vector').distanceType('cosine'), state.ann, limit)
      .select([...(await searchColumns(state, opts)), '_distance'])
      .limit(limit)
      .withRowId();
    const where = await whereFor(state, f.where, filter);
    if (where === false) return [];
    if (where) q = q.where(where);
    // Without refineFactor an IVF_HNSW_SQ `_distance` is the quantised one (off by 0.27 on average at
    // 100k, bench/ann-params.ts): score by the exact cosine of the returned vectors instead (the same
    // order as refineFactor(1), without its second read of the vectors; for IVF_FLAT and flat search it
    // equals 1 − _distance). A zero vector scores 0.
    const hits = (await searchRows(ctx, state, await q.toArrow(), '_distance', opts))
      .map(({ chunk, raw, vector: v, tokens, termHashes, pairHashes }) => ({ chunk, score: v ? (cosine(vector, v) ?? 0) : 1 - raw, vector: v, tokens, termHashes, pairHashes }))
      .sort((a, b) => b.score - a.score || byChunkKey(a.chunk, b.chunk));
    return tokensForUnhashed(state, await textForUnflagged(state, hits));
  });
}

export async function bm25Search(ctx: LanceContext, namespace: string, queryTokens: string[], limit: number, filter?: ChunkFilter, boosts?: ReadonlyMap<string, number>, opts: ReadOptions = {}): Promise<IndexHit[]> {
  const f = filterToWhere(filter);
  const tokens = queryTokens.flatMap((t) => t.split(/\s+/)).filter((t) => t.length > 0);
  if (f.empty || limit <= 0 || tokens.length === 0) return [];
  return ctx.tables.read(namespace, [], async (state) => {
    if (!state.fts) state.fts = await findFts(state.table);
    if (!state.fts) return []; // no rows were ever written
    // A MatchQuery is tokenised by the index's whitespace tokenizer and never parsed as query syntax,
    // so tokens such as AND, "-", "a:b" or '"' match literally. Operator OR = classic BM25 disjunction.
    const match = matchQuery(ctx.lancedb, tokens, boosts);
    // FTS filters are prefilters by default in LanceDB 0.37 (no API to change it; covered by a test).
    const columns = await searchColumns(state, opts);
    const where = await whereFor(state, f.where, filter);
    if (where === false) return [];
    const search = async (n: number) => {
      let q = state.table.query().fullTextSearch(match).select([...columns, '_score']).limit(n).withRowId();
      if (where) q = q.where(where);
      return searchRows(ctx, state, await q.toArrow(), '_score', opts);
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
    return tokensForUnhashed(state, await textForUnflagged(state, hits));
  });
}

/**
 * The BM25 disjunction of `tokens`. Tokens with a boost other than 1 go into their own MatchQuery with
 * that boost, combined by a BooleanQuery of SHOULD clauses (scores add up, as in Lucene).
 */
function matchQuery(lancedb: LanceModule, tokens: string[], boosts?: ReadonlyMap<string, number>): Lance.FullTextQuery {
  const byBoost = new Map<number, string[]>();
  for (const t of tokens) {
    const b = boosts?.get(t) ?? 1;
    byBoost.set(b, [...(byBoost.get(b) ?? []), t]);
  }
  const clause = (ts: string[], boost: number) => new lancedb.MatchQuery(ts.join(' '), 'tokens', { operator: lancedb.Operator.Or, boost });
  if (byBoost.size === 1) return clause(tokens, [...byBoost.keys()][0]);
  return new lancedb.BooleanQuery([...byBoost].map(([b, ts]) => [lancedb.Occur.Should, clause(ts, b)] as [Lance.Occur, Lance.FullTextQuery]));
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
async function searchColumns(state: TableState, opts: ReadOptions): Promise<readonly string[]> {
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
  return [...columnsOfRows(state, opts), 'vector'];
}

/** The separate columns a search read takes of a row without a pack (searchColumns; `vector` aside). */
function columnsOfRows(state: TableState, opts: ReadOptions): readonly string[] {
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
async function searchRows(ctx: LanceContext, state: TableState, result: ArrowTable, scoreColumn: '_distance' | '_score', opts: ReadOptions) {
  const unpacked: Array<{ rowId: bigint; raw: number }> = [];
  const rows = arrowToChunks(result, scoreColumn, undefined, unpacked);
  if (unpacked.length > 0) {
    try {
      const again = await state.table.takeRowIds(unpacked.map((u) => u.rowId)).select([...columnsOfRows(state, opts), 'vector']).withRowId().toArrow();
      const raw = new Map(unpacked.map((u) => [u.rowId, u.raw]));
      for (const row of arrowToChunks(again)) rows.push({ ...row, raw: raw.get(row.chunk.rowId!) ?? Number.NaN });
    } catch (err) {
      ctx.onMaintenanceError(state.table.name, err);
    }
  }
  // Sorted either way: the engine's order of equal scores changes from one search to the next.
  return rows.sort((a, b) => (scoreColumn === '_distance' ? a.raw - b.raw : b.raw - a.raw) || byChunkKey(a.chunk, b.chunk));
}

/**
 * The full prefilter: the doc-id part plus the compiled attribute expression (compiled against the
 * table's current attribute columns, so a name no row carries yet matches nothing).
 * @returns false when the filter can match nothing; undefined when nothing filters
 */
async function whereFor(state: TableState, docWhere: string | undefined, filter?: ChunkFilter): Promise<string | undefined | false> {
  if (!filter?.attributes) return docWhere;
  const attr = compileAttrExpr(filter.attributes, attrColumnsOf(await state.table.schema()));
  if (attr === 'FALSE') return false;
  if (attr === 'TRUE') return docWhere;
  return docWhere ? `${docWhere} AND ${attr}` : attr;
}
