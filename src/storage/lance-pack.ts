// The packed search column (docs/decisions/2026-11-25-packed-search-cell.md): everything ranking and expansion read
// of a candidate, except its document id, in ONE Binary cell — chunk index, chunkset index, token count,
// the stored layout and bibliography flag (lance-layout.ts's encoding), the embedding, the term hashes and
// (format 2) the phrase-pair hashes.
// LanceDB's take costs per column far more than per byte: at 100k chunks, vector top-100 ∥ BM25 top-100
// reading doc_id + this column took 8.7 ms p50 where the six columns it replaces took 10.7 ms (the
// vector copy in it, 400 bytes a row, cost nothing measurable against an int8 copy: 8.7 vs 8.65 ms).
// Only tables created with the column use it (chunkSchema); its rows then store the layout and term hashes
// here and null in `search_layout` / `search_terms`. Tables created before keep their format; a row of a
// packed table that has no pack (written by an older process during a rolling upgrade) is read again with
// the separate columns (lance-index.ts). A process that knows only format 1 treats a format-2 cell the same
// way (unpacked: it reads the separate columns and the terms string), so a rolling upgrade stays correct.

import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import type { Field, Schema, Table as ArrowTable } from 'apache-arrow';
import type { ChunkLayout, ChunkRecord } from './namespace-index.ts';
import { binaryData, decodeLayout, encodeLayout, LITTLE_ENDIAN } from './lance-layout.ts';

// The CommonJS apache-arrow instance, as in lance-arrow.ts (LanceDB's own).
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

/** The packed column's name. */
export const PACK_COLUMN = 'search_pack';

/**
 * Format version written, the cell's first value. Version 2 adds the pair hashes; version 1
 * cells (tables written before) are still read, without them. A reader meeting another version treats the
 * row as unpacked.
 */
export const PACK_VERSION = 2;

/** Header values (little-endian Int32) per version: v1 version, chunk_index, chunkset_index, token_count, L, D, T; v2 adds P. */
const HEADER_V1 = 7;
const HEADER = 8;

/**
 * Cell layout, all little-endian 4-byte values: [version, chunk_index, chunkset_index, token_count, L, D, T, P],
 * then L Int32 values of the stored layout (lance-layout.ts encoding: bibliography flag, extent, near
 * counts; L = −1 when neither flag nor layout is stored), D Float32 values of the vector, T Uint32 term
 * hashes (T = −1 when not stored), P Uint32 pair hashes (analysis/term-hash.ts pairHashSet; P = −1 when not
 * stored). Version 1 cells have no P in the header and no pair hashes. Every part is a multiple of 4
 * bytes, so a cell starts 4-byte aligned whenever the Arrow value buffer does, and readers view it in place.
 */
export function packField(): Field {
  return new arrow.Field(PACK_COLUMN, new arrow.Binary(), true);
}

/** True when a table's schema has the packed column (created with it). */
export function hasPackColumn(schema: Schema): boolean {
  return schema.fields.some((f) => f.name === PACK_COLUMN);
}

/** The packed cell of one row (see packField), in format PACK_VERSION. */
export function encodePack(r: ChunkRecord): Uint8Array {
  const layout = encodeLayout(r);
  const terms = r.term_hashes;
  const pairs = r.pair_hashes;
  const L = layout ? layout.length : -1;
  const T = terms ? terms.length : -1;
  const P = pairs ? pairs.length : -1;
  const D = r.vector.length;
  const out = new ArrayBuffer(4 * (HEADER + Math.max(L, 0) + D + Math.max(T, 0) + Math.max(P, 0)));
  const ints = new DataView(out);
  [PACK_VERSION, r.chunk_index, r.chunkset_index, r.token_count, L, D, T, P].forEach((v, k) => ints.setInt32(4 * k, v, true));
  let at = 4 * HEADER;
  if (layout) for (const v of layout) { ints.setInt32(at, v, true); at += 4; }
  for (const v of r.vector) { ints.setFloat32(at, v, true); at += 4; }
  if (terms) for (const v of terms) { ints.setUint32(at, v, true); at += 4; }
  if (pairs) for (const v of pairs) { ints.setUint32(at, v, true); at += 4; }
  return new Uint8Array(out);
}

/** Arrow data of the packed column for `rows` (every row gets a cell). */
export function packColumnData(rows: ChunkRecord[]): ArrowNS.Data {
  return binaryData(rows.map(encodePack));
}

/** What a packed cell holds. `layout`, `bibliography`, `termHashes` and `pairHashes` are undefined where not stored. */
export interface PackedRow {
  chunkIndex: number;
  chunksetIndex: number;
  tokenCount: number;
  layout?: ChunkLayout;
  bibliography?: boolean;
  vector: Float32Array;
  termHashes?: Uint32Array;
  pairHashes?: Uint32Array;
}

/**
 * Decode one packed cell (format 1 or 2). Values are views on the cell's buffer when it is 4-byte aligned
 * (the usual case), else copies. Returns undefined for a cell of another format version or a truncated one.
 */
export function decodePack(bytes: Uint8Array): PackedRow | undefined {
  if (bytes.byteLength < 4 * HEADER_V1) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = (k: number) => view.getInt32(4 * k, true);
  const version = h(0);
  if (version !== PACK_VERSION && version !== 1) return undefined;
  const header = version === 1 ? HEADER_V1 : HEADER;
  if (bytes.byteLength < 4 * header) return undefined;
  const L = h(4);
  const D = h(5);
  const T = h(6);
  const P = version === 1 ? -1 : h(7);
  if (D < 0 || 4 * (header + Math.max(L, 0) + D + Math.max(T, 0) + Math.max(P, 0)) !== bytes.byteLength) return undefined;
  // Views on the cell where it is 4-byte aligned on a little-endian machine (the usual case), else copies.
  const aligned = LITTLE_ENDIAN && bytes.byteOffset % 4 === 0;
  const uints = (from: number, n: number) => (aligned ? new Uint32Array(bytes.buffer, bytes.byteOffset + 4 * from, n) : Uint32Array.from({ length: n }, (_, k) => view.getUint32(4 * (from + k), true)));
  const vectorAt = header + Math.max(L, 0);
  const row: PackedRow = {
    chunkIndex: h(1),
    chunksetIndex: h(2),
    tokenCount: h(3),
    vector: aligned ? new Float32Array(bytes.buffer, bytes.byteOffset + 4 * vectorAt, D) : Float32Array.from({ length: D }, (_, k) => view.getFloat32(4 * (vectorAt + k), true)),
  };
  // decodeLayout views or copies by the same rule.
  if (L >= 0) Object.assign(row, decodeLayout(bytes.subarray(4 * header, 4 * vectorAt)));
  const termsAt = vectorAt + D;
  if (T >= 0) row.termHashes = uints(termsAt, T);
  if (P >= 0) row.pairHashes = uints(termsAt + Math.max(T, 0), P);
  return row;
}

/**
 * A reader of the packed column of a query result: `at(i)` is row i's decoded cell, undefined where the row
 * has none (null: written by an older process) or the result lacks the column. `present` says whether the
 * result has the column at all.
 */
export function packReader(table: ArrowTable): { present: boolean; at(i: number): PackedRow | undefined } {
  const col = table.getChild(PACK_COLUMN);
  return {
    present: col !== null,
    at(i) {
      const bytes = col?.get(i) as Uint8Array | null | undefined;
      return bytes ? decodePack(bytes) : undefined;
    },
  };
}
