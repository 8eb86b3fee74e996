// The packed search column (issue 15, docs/performance.md "Round 10"): everything ranking and expansion read
// of a candidate, except its document id, in ONE Binary cell — chunk index, chunkset index, token count,
// the stored layout and bibliography flag (lance-layout.ts's encoding), the embedding and the term hashes.
// LanceDB's take costs per column far more than per byte: at 100k chunks, vector top-100 ∥ BM25 top-100
// reading doc_id + this column took 8.7 ms p50 where the six columns it replaces took 10.7 ms (the
// vector copy in it, 400 bytes a row, cost nothing measurable against an int8 copy: 8.7 vs 8.65 ms).
// Only tables created with the column use it (chunkSchema); its rows then store the layout and term hashes
// here and null in `search_layout` / `search_terms`. Tables created before keep their format; a row of a
// packed table that has no pack (written by an older process during a rolling upgrade) is read again with
// the separate columns (lance-index.ts).

import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import type { Field, Schema, Table as ArrowTable } from 'apache-arrow';
import type { ChunkLayout, ChunkRecord } from './namespace-index.ts';
import { binaryData, decodeLayout, encodeLayout, LITTLE_ENDIAN } from './lance-layout.ts';

// The CommonJS apache-arrow instance, as in lance-arrow.ts (LanceDB's own).
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

/** The packed column's name. */
export const PACK_COLUMN = 'search_pack';

/** Format version, the cell's first value: a reader meeting another version treats the row as unpacked. */
export const PACK_VERSION = 1;

/** Header values (little-endian Int32): version, chunk_index, chunkset_index, token_count, L, D, T. */
const HEADER = 7;

/**
 * Cell layout, all little-endian 4-byte values: [version, chunk_index, chunkset_index, token_count, L, D, T],
 * then L Int32 values of the stored layout (lance-layout.ts encoding: bibliography flag, extent, near
 * counts; L = −1 when neither flag nor layout is stored), D Float32 values of the vector, T Uint32 term
 * hashes (T = −1 when not stored). Every part is a multiple of 4 bytes, so a cell starts 4-byte aligned
 * whenever the Arrow value buffer does, and readers view it in place.
 */
export function packField(): Field {
  return new arrow.Field(PACK_COLUMN, new arrow.Binary(), true);
}

/** True when a table's schema has the packed column (created with it). */
export function hasPackColumn(schema: Schema): boolean {
  return schema.fields.some((f) => f.name === PACK_COLUMN);
}

/** The packed cell of one row (see packField). */
export function encodePack(r: ChunkRecord): Uint8Array {
  const layout = encodeLayout(r);
  const terms = r.term_hashes;
  const L = layout ? layout.length : -1;
  const T = terms ? terms.length : -1;
  const D = r.vector.length;
  const out = new ArrayBuffer(4 * (HEADER + Math.max(L, 0) + D + Math.max(T, 0)));
  const ints = new DataView(out);
  [PACK_VERSION, r.chunk_index, r.chunkset_index, r.token_count, L, D, T].forEach((v, k) => ints.setInt32(4 * k, v, true));
  let at = 4 * HEADER;
  if (layout) for (const v of layout) { ints.setInt32(at, v, true); at += 4; }
  for (const v of r.vector) { ints.setFloat32(at, v, true); at += 4; }
  if (terms) for (const v of terms) { ints.setUint32(at, v, true); at += 4; }
  return new Uint8Array(out);
}

/** Arrow data of the packed column for `rows` (every row gets a cell). */
export function packColumnData(rows: ChunkRecord[]): ArrowNS.Data {
  return binaryData(rows.map(encodePack));
}

/** What a packed cell holds. `layout`, `bibliography` and `termHashes` are undefined where not stored. */
export interface PackedRow {
  chunkIndex: number;
  chunksetIndex: number;
  tokenCount: number;
  layout?: ChunkLayout;
  bibliography?: boolean;
  vector: Float32Array;
  termHashes?: Uint32Array;
}

/**
 * Decode one packed cell. Values are views on the cell's buffer when it is 4-byte aligned (the usual case),
 * else copies. Returns undefined for a cell of another format version or a truncated one.
 */
export function decodePack(bytes: Uint8Array): PackedRow | undefined {
  if (bytes.byteLength < 4 * HEADER) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = (k: number) => view.getInt32(4 * k, true);
  if (h(0) !== PACK_VERSION) return undefined;
  const L = h(4);
  const D = h(5);
  const T = h(6);
  if (D < 0 || 4 * (HEADER + Math.max(L, 0) + D + Math.max(T, 0)) !== bytes.byteLength) return undefined;
  // Views on the cell where it is 4-byte aligned on a little-endian machine (the usual case), else copies.
  const aligned = LITTLE_ENDIAN && bytes.byteOffset % 4 === 0;
  const vectorAt = HEADER + Math.max(L, 0);
  const row: PackedRow = {
    chunkIndex: h(1),
    chunksetIndex: h(2),
    tokenCount: h(3),
    vector: aligned ? new Float32Array(bytes.buffer, bytes.byteOffset + 4 * vectorAt, D) : Float32Array.from({ length: D }, (_, k) => view.getFloat32(4 * (vectorAt + k), true)),
  };
  // decodeLayout views or copies by the same rule.
  if (L >= 0) Object.assign(row, decodeLayout(bytes.subarray(4 * HEADER, 4 * vectorAt)));
  if (T >= 0) {
    const from = vectorAt + D;
    row.termHashes = aligned ? new Uint32Array(bytes.buffer, bytes.byteOffset + 4 * from, T) : Uint32Array.from({ length: T }, (_, k) => view.getUint32(4 * (from + k), true));
  }
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
