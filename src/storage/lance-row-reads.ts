// Reads of a LanceDB namespace table by chunk position or row address rather than by rank: a document's
// chunks, the ranges expansion asks for, the rows a response shows, the document ids, and the second
// reads that complete search rows written before a column existed (their terms, their text).
import { AppError } from '../internal/errors.ts';
import { arrowToChunks, arrowToLayout, LAYOUT_COLUMNS, SHOWN_COLUMNS, STORED_COLUMNS } from './lance-arrow.ts';
import type { LanceContext } from './lance-context.ts';
import type { TableState } from './lance-maintenance.ts';
import { rangesToWhere, sqlString } from './lance-sql.ts';
import type { ChunkRef, IndexHit, ReadOptions, StoredChunk } from './namespace-index.ts';

export async function getChunks(ctx: LanceContext, namespace: string, docId: string, from: number, to: number): Promise<StoredChunk[]> {
  if (!Number.isInteger(from) || !Number.isInteger(to)) throw new AppError('internal_error', `chunk range must be integers, got ${from}..${to}`);
  if (to < from) return [];
  const where = `doc_id = ${sqlString(docId)} AND chunk_index >= ${from} AND chunk_index <= ${to}`;
  return ctx.tables.read(namespace, [], async (state) =>
    arrowToChunks(await state.table.query().where(where).select([...STORED_COLUMNS]).toArrow())
      .map((r) => r.chunk)
      .sort((a, b) => a.chunk_index - b.chunk_index),
  );
}

export async function getChunkRanges(ctx: LanceContext, namespace: string, ranges: Array<{ docId: string; from: number; to: number }>, opts: ReadOptions = {}): Promise<StoredChunk[]> {
  for (const r of ranges) {
    if (!Number.isInteger(r.from) || !Number.isInteger(r.to)) throw new AppError('internal_error', `chunk range must be integers, got ${r.from}..${r.to}`);
  }
  const wanted = ranges.filter((r) => r.to >= r.from);
  if (wanted.length === 0) return [];
  const text = opts.text !== false;
  // Grouped ranges behind a leading doc_id IN list (lance-sql.ts rangesToWhere): the doc_id BTREE index
  // selects the rows and few OR terms are evaluated; rows outside the ranges are dropped before decoding.
  const { where, keep } = rangesToWhere(wanted);
  return ctx.tables.read(namespace, [], async (state) => {
    // A layout read returns row addresses too: the text of the chunks shown is then taken by address.
    const rows = text
      ? await state.table.query().where(where).select([...STORED_COLUMNS]).toArrow()
      : await state.table.query().where(where).select([...LAYOUT_COLUMNS]).withRowId().toArrow();
    return text ? arrowToChunks(rows, undefined, keep).map((r) => r.chunk) : arrowToLayout(rows, keep);
  });
}

export async function getChunksAt(ctx: LanceContext, namespace: string, chunks: ChunkRef[], opts: { shown?: boolean } = {}): Promise<StoredChunk[]> {
  if (chunks.length === 0) return [];
  const key = (docId: string, chunkIndex: number) => `${docId}\u0000${chunkIndex}`;
  const wanted = new Set(chunks.map((c) => key(c.doc_id, c.chunk_index)));
  return ctx.tables.read(namespace, [], async (state) => {
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
    for (const chunk of await fullRows(state, rest)) found.set(key(chunk.doc_id, chunk.chunk_index), chunk);
    return [...found.values()];
  });
}

export async function listDocIds(ctx: LanceContext, namespace: string): Promise<string[]> {
  return ctx.tables.read(namespace, [], async (state) => {
    const ids = new Set<string>();
    for await (const batch of state.table.query().select(['doc_id'])) {
      const col = batch.getChild('doc_id');
      if (col) for (const v of col) ids.add(v as string);
    }
    return [...ids].sort();
  });
}

/**
 * Every chunk's heading path of one document (chunk_index order), read without text or vectors: the
 * document's outline, for the sections a query names (search/section-search.ts).
 */
export async function getHeadings(ctx: LanceContext, namespace: string, docId: string): Promise<Array<{ chunk_index: number; heading_path: string }>> {
  return ctx.tables.read(namespace, [], async (state) => {
    const out: Array<{ chunk_index: number; heading_path: string }> = [];
    const rows = await state.table.query().where(`doc_id = ${sqlString(docId)}`).select(['chunk_index', 'heading_path']).toArrow();
    const idx = rows.getChild('chunk_index'), heading = rows.getChild('heading_path');
    for (let i = 0; i < rows.numRows; i++) out.push({ chunk_index: Number(idx?.get(i)), heading_path: String(heading?.get(i) ?? '') });
    return out.sort((a, b) => a.chunk_index - b.chunk_index);
  });
}

/** The full rows (text included) of these chunks, read by their (doc_id, chunk_index) in one query; [] for none. */
export async function fullRows(state: TableState, chunks: ChunkRef[]): Promise<StoredChunk[]> {
  if (chunks.length === 0) return [];
  const { where, keep } = rangesToWhere(chunks.map((c) => ({ docId: c.doc_id, from: c.chunk_index, to: c.chunk_index })));
  return arrowToChunks(await state.table.query().where(where).select([...STORED_COLUMNS]).toArrow(), undefined, keep).map(({ chunk }) => chunk);
}

/**
 * Rows read without their terms that store no term hashes (written before the column existed, in a table
 * that has it since) get their `tokens` string in one more read by row address, so coverage can scan it.
 * @returns `hits`, those hits with `tokens` set
 */
export async function tokensForUnhashed(state: TableState, hits: IndexHit[]): Promise<IndexHit[]> {
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

/**
 * Rows read without text that store no bibliography flag (written before it existed, in a table that
 * has the column since) get their text in one more read, so ranking can compute the flag from it.
 * @returns `hits`, those rows' chunks replaced by full rows
 */
export async function textForUnflagged(state: TableState, hits: IndexHit[]): Promise<IndexHit[]> {
  const bare = hits.filter((h) => h.chunk.textOmitted && h.chunk.bibliography === undefined);
  if (bare.length === 0) return hits;
  const byId = new Map((await fullRows(state, bare.map((h) => h.chunk))).map((chunk) => [chunk.id, chunk]));
  for (const h of bare) {
    const row = byId.get(h.chunk.id);
    if (row) h.chunk = { ...row, ...(h.chunk.layout ? { layout: h.chunk.layout } : {}), ...(h.chunk.rowId !== undefined ? { rowId: h.chunk.rowId } : {}) };
  }
  return hits;
}
