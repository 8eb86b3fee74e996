// The columns a chunk row carries so that a search needs no text before ranking and no layout read for
// expansion (docs/performance.md): `search_layout` (the chunk's chunkset extent and total tokens,
// the token counts of its chunkset neighbours (ChunkLayout), and its bibliography flag) and `search_terms`
// (the sorted hashes of its analysed terms, read by ranking instead of the term string). Tables written
// before these existed lack them; the first write of this code adds them (nullable: older rows stay null,
// and readers fall back to reading text, layout or terms for those rows).

import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import type { Field, Schema, Table as ArrowTable } from 'apache-arrow';
import type * as Lance from '@lancedb/lancedb';
import type { ChunkLayout, ChunkRecord } from './namespace-index.ts';

// The CommonJS apache-arrow instance, as in lance-arrow.ts (LanceDB's own).
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

/**
 * The one column holding them: little-endian Int32 values [bibliography (0/1), setFirst, setLast,
 * setTokens, nearFrom, ...near] (nearFrom stored as −1 − nearFrom − near.length when `near` spans the document,
 * ChunkLayout.docWide), or just [bibliography] when the row has no layout; null when nothing was
 * stored. One Binary column because LanceDB's take costs per column (100k chunks, vector top-100: four
 * Int32 columns, an Int8 and a List<Int32> cost 1.8 ms more than none).
 */
export const LAYOUT_COLUMN = 'search_layout';

/**
 * The term-hash column: ChunkRecord.term_hashes as little-endian Uint32 values (ascending); null when not
 * stored. Read in place of the `tokens` string (≈ 4 bytes a distinct term instead of ≈ 2 KB of text a chunk).
 */
export const TERMS_COLUMN = 'search_terms';

/** The stored-layout columns (every one is added to an older table by its first write). */
export const LAYOUT_STORE_COLUMNS = [LAYOUT_COLUMN, TERMS_COLUMN] as const;

/** The nullable Arrow fields of the stored-layout columns (appended to chunkSchema). */
export function layoutFields(): Field[] {
  return [new arrow.Field(LAYOUT_COLUMN, new arrow.Binary(), true), new arrow.Field(TERMS_COLUMN, new arrow.Binary(), true)];
}

/** True when a table's schema has every stored-layout column. */
export function hasLayoutColumns(schema: Schema): boolean {
  const has = storedColumnsOf(schema);
  return has.layout && has.terms;
}

/** Which stored-layout columns a table's schema has (a table written before the term-hash column has the layout only). */
export function storedColumnsOf(schema: Schema): { layout: boolean; terms: boolean } {
  const names = new Set(schema.fields.map((f) => f.name));
  return { layout: names.has(LAYOUT_COLUMN), terms: names.has(TERMS_COLUMN) };
}

/**
 * Add the stored-layout columns to a table created before they existed (null in its rows). A concurrent
 * writer may add them first: the schema is re-read and the add retried a few times.
 * @returns the table's schema with the columns
 */
export async function ensureLayoutColumns(table: Lance.Table): Promise<Schema> {
  for (let attempt = 1; ; attempt++) {
    const schema = await table.schema();
    if (hasLayoutColumns(schema)) return schema;
    const names = new Set(schema.fields.map((f) => f.name));
    try {
      await table.addColumns(layoutFields().filter((f) => !names.has(f.name)));
    } catch (err) {
      if (attempt >= 4) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}

/** The stored values of one row (see LAYOUT_COLUMN), or null when it carries neither a flag nor a layout. */
export function encodeLayout(r: ChunkRecord): Int32Array | null {
  if (r.bibliography === undefined) return null;
  const l = r.layout;
  const out = new Int32Array(l ? 5 + l.near.length : 1);
  out[0] = r.bibliography ? 1 : 0;
  if (l) {
    // A document-wide window is marked by storing nearFrom as −1 − nearFrom − near.length (always negative):
    // a reader that predates the mark places every stored count at a negative chunk index, finds none of
    // its chunks there, and reads the chunkset instead of misplanning (expand.ts planFromLayout → null).
    out.set([l.setFirst, l.setLast, l.setTokens, l.docWide ? -1 - l.nearFrom - l.near.length : l.nearFrom], 1);
    out.set(Array.from(l.near), 5);
  }
  return out;
}

/**
 * Arrow data of stored-layout column `field` for `rows` (null where a row carries no flag), or undefined
 * when `field` is not a stored-layout column.
 */
export function layoutColumnData(field: Field, rows: ChunkRecord[]): ArrowNS.Data | undefined {
  if (field.name !== LAYOUT_COLUMN && field.name !== TERMS_COLUMN) return undefined;
  const values = field.name === LAYOUT_COLUMN ? rows.map(encodeLayout) : rows.map((r) => r.term_hashes ?? null);
  return binaryData(values.map((v) => (v ? le32Bytes(v) : null)));
}

/** 32-bit values as little-endian bytes (the stored byte order on every machine). */
function le32Bytes(values: Int32Array | Uint32Array): Uint8Array {
  const bytes = new Uint8Array(4 * values.length);
  const view = new DataView(bytes.buffer);
  values.forEach((x, k) => view.setUint32(4 * k, x >>> 0, true));
  return bytes;
}

/** An Arrow Binary column of `cells` (null = a null cell), written into one value buffer. */
export function binaryData(cells: Array<Uint8Array | null>): ArrowNS.Data {
  const n = cells.length;
  const offsets = new Int32Array(n + 1);
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  cells.forEach((c, i) => {
    if (c) valid[i >> 3] |= 1 << (i & 7);
    else nulls++;
    offsets[i + 1] = offsets[i] + (c ? c.byteLength : 0);
  });
  const bytes = new Uint8Array(offsets[n]);
  cells.forEach((c, i) => { if (c) bytes.set(c, offsets[i]); });
  return arrow.makeData({ type: new arrow.Binary(), length: n, nullCount: nulls, nullBitmap: valid, valueOffsets: offsets, data: bytes });
}

/** True on a little-endian machine (typed-array views then read the stored little-endian Int32 values as is). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * A reader of the stored-layout column of a query result (absent from the result = nothing stored).
 * `at(i)` returns row i's layout and bibliography flag, each undefined where not stored.
 */
export function layoutReader(table: ArrowTable): { at(i: number): { layout?: ChunkLayout; bibliography?: boolean } } {
  const col = table.getChild(LAYOUT_COLUMN);
  return {
    at(i) {
      const bytes = col?.get(i) as Uint8Array | null | undefined;
      return bytes ? decodeLayout(bytes) : {};
    },
  };
}

/**
 * Decode stored layout values (encodeLayout's, as little-endian bytes): the layout and the bibliography flag,
 * each undefined where not stored; {} for fewer than 4 bytes.
 */
export function decodeLayout(bytes: Uint8Array): { layout?: ChunkLayout; bibliography?: boolean } {
  if (bytes.byteLength < 4) return {};
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bibliography = view.getInt32(0, true) === 1;
  if (bytes.byteLength < 20) return { bibliography };
  const n = bytes.byteLength / 4 - 5;
  // A view on the Arrow buffer where it is 4-byte aligned on a little-endian machine (every stored value
  // is a multiple of 4 bytes long, so it is whenever the buffer is); else a copy. Up to 65 values a row,
  // 200 rows a search: the copies were ≈ 0.15 ms of a search (profiled).
  const near = LITTLE_ENDIAN && (bytes.byteOffset + 20) % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset + 20, n) : new Int32Array(n);
  if (near.buffer !== bytes.buffer) for (let k = 0; k < n; k++) near[k] = view.getInt32(20 + 4 * k, true);
  const from = view.getInt32(16, true);
  const layout: ChunkLayout = { setFirst: view.getInt32(4, true), setLast: view.getInt32(8, true), setTokens: view.getInt32(12, true), nearFrom: from < 0 ? -1 - from - near.length : from, near };
  if (from < 0) layout.docWide = true;
  return { layout, bibliography };
}

/**
 * A reader of the term-hash column of a query result: `at(i)` is row i's sorted term hashes, undefined where
 * the row stores none or the result lacks the column.
 */
export function termsReader(table: ArrowTable): { at(i: number): Uint32Array | undefined } {
  const col = table.getChild(TERMS_COLUMN);
  return {
    at(i) {
      const bytes = col?.get(i) as Uint8Array | null | undefined;
      if (!bytes) return undefined;
      const n = bytes.byteLength >>> 2;
      // Arrow value buffers are not 4-byte aligned in general: copy unless this slice happens to be.
      if ((bytes.byteOffset & 3) === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
      return new Uint32Array(bytes.slice(0, 4 * n).buffer);
    },
  };
}
