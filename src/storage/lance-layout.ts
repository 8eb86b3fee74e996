// The columns a chunk row carries so that a search needs no text before ranking and no layout read for
// expansion (issue 15, docs/performance.md): the chunk's chunkset extent and total tokens, the token counts
// of its chunkset neighbours (ChunkLayout), and its bibliography flag. Tables written before these
// existed lack them; the first write of this code adds them (nullable: older rows stay null, and readers
// fall back to reading text or layout for those rows).

import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import type { Field, Schema, Table as ArrowTable } from 'apache-arrow';
import type * as Lance from '@lancedb/lancedb';
import type { ChunkLayout, ChunkRecord } from './namespace-index.ts';

// The CommonJS apache-arrow instance, as in lance-arrow.ts (LanceDB's own).
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

/** Int32 columns of a ChunkLayout, by ChunkLayout key. */
const INT_FIELDS = { setFirst: 'set_first', setLast: 'set_last', setTokens: 'set_tokens', nearFrom: 'near_from' } as const;
const NEAR = 'near_tokens';
/** 1 = part of a reference list, 0 = not, null = not stored (Int8 like the bool attributes). */
const BIBLIOGRAPHY = 'bibliography';

/** The stored-layout columns, in write order. */
export const LAYOUT_STORE_COLUMNS = [...Object.values(INT_FIELDS), NEAR, BIBLIOGRAPHY] as const;

/** The nullable Arrow fields of the stored-layout columns (appended to chunkSchema). */
export function layoutFields(): Field[] {
  return [
    ...Object.values(INT_FIELDS).map((name) => new arrow.Field(name, new arrow.Int32(), true)),
    new arrow.Field(NEAR, new arrow.List(new arrow.Field('item', new arrow.Int32(), true)), true),
    new arrow.Field(BIBLIOGRAPHY, new arrow.Int8(), true),
  ];
}

/** True when a table's schema has every stored-layout column. */
export function hasLayoutColumns(schema: Schema): boolean {
  const names = new Set(schema.fields.map((f) => f.name));
  return LAYOUT_STORE_COLUMNS.every((c) => names.has(c));
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

/**
 * Arrow data of stored-layout column `name` for `rows` (null where a row carries no layout / flag), or
 * undefined when `name` is not a stored-layout column.
 */
export function layoutColumnData(field: Field, rows: ChunkRecord[]): ArrowNS.Data | undefined {
  const n = rows.length;
  const key = (Object.keys(INT_FIELDS) as Array<keyof typeof INT_FIELDS>).find((k) => INT_FIELDS[k] === field.name);
  if (key) return nullableData(new arrow.Int32(), rows.map((r) => r.layout?.[key] ?? null), Int32Array);
  if (field.name === BIBLIOGRAPHY) return nullableData(new arrow.Int8(), rows.map((r) => (r.bibliography === undefined ? null : r.bibliography ? 1 : 0)), Int8Array);
  if (field.name !== NEAR) return undefined;
  const offsets = new Int32Array(n + 1);
  const valid = new Uint8Array(Math.ceil(n / 8));
  let total = 0;
  rows.forEach((r, i) => {
    if (r.layout) {
      valid[i >> 3] |= 1 << (i & 7);
      total += r.layout.near.length;
    }
    offsets[i + 1] = total;
  });
  const flat = new Int32Array(total);
  rows.forEach((r, i) => { if (r.layout) flat.set(Array.from(r.layout.near), offsets[i]); });
  const child = arrow.makeData({ type: new arrow.Int32(), length: total, nullCount: 0, data: flat });
  const nulls = rows.filter((r) => !r.layout).length;
  return arrow.makeData({ type: field.type as ArrowNS.List, length: n, nullCount: nulls, nullBitmap: valid, valueOffsets: offsets, child });
}

/** A nullable Int32 or Int8 column. */
function nullableData(type: ArrowNS.Int32 | ArrowNS.Int8, values: Array<number | null>, Ctor: Int32ArrayConstructor | Int8ArrayConstructor): ArrowNS.Data {
  const n = values.length;
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  const data = new Ctor(n);
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else {
      data[i] = v;
      valid[i >> 3] |= 1 << (i & 7);
    }
  });
  return arrow.makeData({ type: type as ArrowNS.Int32, length: n, nullCount: nulls, nullBitmap: valid, data: data as Int32Array });
}

/**
 * A reader of the stored-layout columns of a query result (columns absent from the result read as
 * absent). `at(i)` returns row i's layout and bibliography flag, each undefined where not stored.
 */
export function layoutReader(table: ArrowTable): { at(i: number): { layout?: ChunkLayout; bibliography?: boolean } } {
  const ints = (Object.keys(INT_FIELDS) as Array<keyof typeof INT_FIELDS>).map((k) => [k, table.getChild(INT_FIELDS[k])] as const);
  const near = table.getChild(NEAR);
  const bib = table.getChild(BIBLIOGRAPHY);
  return {
    at(i) {
      const out: { layout?: ChunkLayout; bibliography?: boolean } = {};
      const flag = bib?.get(i);
      if (flag !== null && flag !== undefined) out.bibliography = flag === 1;
      const list = near?.get(i) as { toArray(): Int32Array } | null | undefined;
      if (!list || ints.some(([, c]) => c === null || c.get(i) === null)) return out;
      const v = Object.fromEntries(ints.map(([k, c]) => [k, c!.get(i) as number])) as Omit<ChunkLayout, 'near'>;
      out.layout = { ...v, near: list.toArray() };
      return out;
    },
  };
}
