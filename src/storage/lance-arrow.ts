// Arrow plumbing for the LanceDB namespace index: the explicit chunk-table schema (so empty or all-null
// columns never depend on type inference), the embedding signature kept in the schema metadata (it
// lives in the Lance manifest, so it travels with the table on a local dir or s3://), conversion of
// ChunkRecord rows into Arrow tables for batched writes, and of query results back into StoredChunk.

import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import type { DataType, Field, FixedSizeList, Float32, Schema, Table as ArrowTable } from 'apache-arrow';
import { chunkId, type ChunkRecord, type EmbeddingSignature, type StoredChunk } from './namespace-index.ts';
import { ATTR_PREFIX, attrColumnData } from './lance-attributes.ts';
import { LAYOUT_COLUMN, layoutColumnData, layoutFields, layoutReader, termsReader } from './lance-layout.ts';
import { BUILD_KEY, encodeBuild } from './index-build.ts';
import { hasPackColumn, PACK_COLUMN, packColumnData, packField, packReader } from './lance-pack.ts';

// The CommonJS instance of apache-arrow, i.e. the very one @lancedb/lancedb requires: Arrow's type
// visitors dispatch on `instanceof`, so objects from the ESM copy ("Unrecognized type 'NONE'") or read
// back from LanceDB must never be mixed with another module instance.
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

/** Schema-metadata key holding the JSON-encoded EmbeddingSignature of a namespace table. */
export const SIGNATURE_KEY = 'docsearch.embedding_signature';

/** Columns returned by queries (everything but `vector` and `tokens`), in StoredChunk order. */
export const STORED_COLUMNS = [
  'id',
  'doc_id',
  'source_job_id',
  'chunk_index',
  'chunkset_index',
  'page_start',
  'page_end',
  'heading_path',
  'content',
  'token_count',
] as const;

/**
 * Columns of a search read without text (vectorSearch / bm25Search with ReadOptions.text false on a table
 * that stores the layout, lance-layout.ts): what ranking and expansion need, no text, no `id` (derived as
 * `${doc_id}:${chunk_index}`) and no page span (the response reads it with the text, SHOWN_COLUMNS). Every
 * column costs a random read per candidate in both lists: without these three, vector ∥ BM25 top-100 at
 * 100k chunks took 12.3 → 10.3 ms and 16.7 → 13.9 ms of CPU a search
 * (docs/decisions/2026-11-24-reads-without-text.md).
 */
export const SEARCH_COLUMNS = ['doc_id', 'chunk_index', 'chunkset_index', 'token_count', LAYOUT_COLUMN] as const;

/**
 * Columns of a lean search read WITH text (ReadOptions.lean; the advanced tier, whose reranker reads the
 * passages): SEARCH_COLUMNS plus the text and heading path, still without `id`, `source_job_id` and the page
 * span, which the response reads for what it shows.
 */
export const SEARCH_TEXT_COLUMNS = [...SEARCH_COLUMNS, 'heading_path', 'content'] as const;

/**
 * Columns of the read that gives the chunks a response shows their text (NamespaceIndex.getChunksAt with
 * `shown`): what rendering and JSON hits use. No `id` or `source_job_id` (three string columns fewer, with
 * `heading_path`, made a take of 24 random rows 2.60 → 2.18 ms p50 at 100k chunks);
 * `heading_path` is read all the same, because the prompt-ready context shows each region's section
 * headings (render.ts).
 */
export const SHOWN_COLUMNS = ['doc_id', 'chunk_index', 'chunkset_index', 'page_start', 'page_end', 'heading_path', 'content', 'token_count'] as const;

/**
 * Columns of a search read without text on a packed table (lance-pack.ts): the document id and the pack,
 * which holds everything else ranking and expansion read, the vector and term hashes included.
 */
export const PACKED_SEARCH_COLUMNS = ['doc_id', PACK_COLUMN] as const;

/** Columns of a lean search read with text (ReadOptions.lean) on a packed table: the pack, the text and heading path. */
export const PACKED_TEXT_COLUMNS = [...PACKED_SEARCH_COLUMNS, 'heading_path', 'content'] as const;

/** Columns of a layout-only read (ReadOptions.text false): what expansion and budgeting need. */
export const LAYOUT_COLUMNS = ['doc_id', 'chunk_index', 'chunkset_index', 'page_start', 'page_end', 'token_count'] as const;

const STRING_COLUMNS = ['id', 'doc_id', 'source_job_id', 'heading_path', 'content', 'tokens'] as const;
const INT_COLUMNS = ['chunk_index', 'chunkset_index', 'page_start', 'page_end', 'token_count'] as const;

/**
 * The Arrow schema of a namespace table: exactly the ChunkRecord columns, `vector` as
 * FixedSizeList<Float32>(signature.dimension), and the signature and the build record (index-build.ts) in
 * the schema metadata.
 */
export function chunkSchema(signature: EmbeddingSignature): Schema {
  const fields: Field[] = [
    new arrow.Field('id', new arrow.Utf8(), false),
    new arrow.Field('doc_id', new arrow.Utf8(), false),
    new arrow.Field('source_job_id', new arrow.Utf8(), false),
    new arrow.Field('chunk_index', new arrow.Int32(), false),
    new arrow.Field('chunkset_index', new arrow.Int32(), false),
    new arrow.Field('page_start', new arrow.Int32(), false),
    new arrow.Field('page_end', new arrow.Int32(), false),
    new arrow.Field('heading_path', new arrow.Utf8(), false),
    new arrow.Field('content', new arrow.Utf8(), false),
    new arrow.Field('tokens', new arrow.Utf8(), false),
    new arrow.Field('token_count', new arrow.Int32(), false),
    new arrow.Field('vector', new arrow.FixedSizeList(signature.dimension, new arrow.Field('item', new arrow.Float32(), true)), false),
    ...layoutFields(),
    packField(),
  ];
  return new arrow.Schema(fields, new Map([[SIGNATURE_KEY, encodeSignature(signature)], [BUILD_KEY, encodeBuild()]]));
}

/** JSON form of a signature with a fixed key order (compared textually nowhere; parsed back). */
export function encodeSignature(s: EmbeddingSignature): string {
  return JSON.stringify({ provider: s.provider, model: s.model, dimension: s.dimension });
}

/** Signature recorded in a table's schema metadata, or null when the table carries none. */
export function readSignature(schema: Schema): EmbeddingSignature | null {
  const raw = schema.metadata.get(SIGNATURE_KEY);
  if (!raw) return null;
  const parsed = JSON.parse(raw) as EmbeddingSignature;
  return { provider: String(parsed.provider), model: String(parsed.model), dimension: Number(parsed.dimension) };
}

/** True when two signatures name the same provider, model and dimension. */
export function sameSignature(a: EmbeddingSignature, b: EmbeddingSignature): boolean {
  return a.provider === b.provider && a.model === b.model && a.dimension === b.dimension;
}

/**
 * Build one Arrow table (a single record batch) from `rows`, shaped by `schema` (the table's
 * current schema). Attribute columns (`attr_<name>`) take the rows' attribute values (null where a
 * row has none); other columns the table has beyond ChunkRecord are written as nulls. Throws when a vector's length differs from the schema's.
 */
export function rowsToArrow(rows: ChunkRecord[], schema: Schema): ArrowTable {
  const n = rows.length;
  const packed = hasPackColumn(schema);
  const children = schema.fields.map((field) => columnData(field, rows, n, packed));
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0, children });
  return new arrow.Table(schema, [new arrow.RecordBatch(schema, struct)]);
}

function columnData(field: Field, rows: ChunkRecord[], n: number, packed: boolean) {
  const name = field.name;
  if (name === PACK_COLUMN) return packColumnData(rows);
  if ((STRING_COLUMNS as readonly string[]).includes(name)) {
    const key = name as (typeof STRING_COLUMNS)[number];
    return utf8Data(rows.map((r) => r[key]));
  }
  if ((INT_COLUMNS as readonly string[]).includes(name)) {
    const key = name as (typeof INT_COLUMNS)[number];
    const values = Int32Array.from(rows, (r) => r[key]);
    return arrow.makeData({ type: new arrow.Int32(), length: n, nullCount: 0, data: values });
  }
  if (name === 'vector') {
    const type = field.type as FixedSizeList<Float32>;
    const dim = type.listSize;
    const flat = new Float32Array(n * dim);
    rows.forEach((r, i) => {
      if (r.vector.length !== dim) {
        throw new Error(`chunk ${r.id}: vector has ${r.vector.length} dimensions, the table expects ${dim}`);
      }
      flat.set(r.vector, i * dim);
    });
    const child = arrow.makeData({ type: new arrow.Float32(), length: n * dim, nullCount: 0, data: flat });
    return arrow.makeData({ type, length: n, nullCount: 0, child });
  }
  if (name.startsWith(ATTR_PREFIX)) return attrColumnData(field, rows);
  // A packed table stores the layout and term hashes in the pack only (lance-pack.ts).
  const layout = packed ? undefined : layoutColumnData(field, rows);
  if (layout) return layout;
  return arrow.vectorFromArray(new Array(n).fill(null), field.type as DataType).data[0];
}

/**
 * A Utf8 column built directly: byte lengths, one buffer, Buffer.write per value (native UTF-8). Arrow's
 * builder (vectorFromArray) encodes value by value in JS and took ~100–300 ms of the event loop for one
 * 2,000-row batch of a long unbroken text (it stalled every request); this is 5–7× faster.
 * Null or undefined values become nulls.
 */
export function utf8Data(values: Array<string | null | undefined>): ArrowNS.Data<ArrowNS.Utf8> {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  let nulls = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v == null) nulls++;
    else total += Buffer.byteLength(v, 'utf8');
    offsets[i + 1] = total;
  }
  const bytes = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const v of values) if (v != null) pos += bytes.write(v, pos, 'utf8');
  let nullBitmap: Uint8Array | undefined;
  if (nulls) {
    nullBitmap = new Uint8Array(Math.ceil(n / 8));
    values.forEach((v, i) => { if (v != null) nullBitmap![i >> 3] |= 1 << (i & 7); });
  }
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, total);
  return arrow.makeData({ type: new arrow.Utf8(), length: n, nullCount: nulls, valueOffsets: offsets, data, nullBitmap });
}

/** A row test on (doc_id, chunk_index), applied before the rest of a row is decoded. */
export type RowTest = (docId: string, chunkIndex: number) => boolean;

/**
 * Read StoredChunk rows (plus an optional numeric score column, e.g. `_score` or `_distance`, and the
 * `vector` column when the query selected it) out of a query result. Column access is by name; absent
 * score columns yield NaN. With `keep`, only the rows it accepts are decoded and returned. A result
 * without `content` (SEARCH_COLUMNS) gives empty text fields, `textOmitted` and, without the page
 * columns, a page span of 0 (the response reads the shown chunks again, with pages); the stored layout and
 * bibliography flag are set where the result has them and the row stores them, `rowId` where it has `_rowid`,
 * `termHashes` where it has the term-hash column and the row stores them.
 * A result with the packed column (lance-pack.ts; PACKED_SEARCH_COLUMNS) takes chunk index, chunkset index,
 * token count, layout, flag, vector, term hashes and pair hashes (format 2) from it. A row of such a result without a pack (null)
 * lacks what the pack holds: with `unpacked`, its `_rowid` and score go there (the caller reads it again
 * with the separate columns) and it is left out.
 * @throws Error when a required column is missing, or an unpacked row comes without `unpacked` or `_rowid`
 */
export function arrowToChunks(
  table: ArrowTable,
  scoreColumn?: string,
  keep?: RowTest,
  unpacked?: Array<{ rowId: bigint; raw: number }>,
): Array<{ chunk: StoredChunk; raw: number; vector?: Float32Array; tokens?: string; termHashes?: Uint32Array; pairHashes?: Uint32Array }> {
  if (table.numRows === 0) return []; // LanceDB may return an empty table without the projected schema
  const col = (name: string) => {
    const c = table.getChild(name);
    if (!c) throw new Error(`query result lacks column ${name}`);
    return c;
  };
  const pack = packReader(table);
  // Without the pack these three are required; with it they are read only for rows that have no pack.
  const optional = (name: string) => (pack.present ? table.getChild(name) : col(name));
  // A read of SHOWN_COLUMNS has no id or job: the id is derived as layout-only reads derive it.
  const id = table.getChild('id');
  const docId = col('doc_id');
  const content = table.getChild('content');
  const job = table.getChild('source_job_id');
  const chunkIndex = optional('chunk_index');
  const chunkset = optional('chunkset_index');
  // A search read without text (SEARCH_COLUMNS) has no page span: 0 until the response reads it.
  const pageStart = table.getChild('page_start');
  const pageEnd = table.getChild('page_end');
  const heading = table.getChild('heading_path');
  const tokenCount = optional('token_count');
  const score = scoreColumn ? table.getChild(scoreColumn) : null;
  const vectors = table.getChild('vector');
  const lexical = table.getChild('tokens');
  const stored = layoutReader(table);
  const terms = termsReader(table);
  const rowIds = table.getChild('_rowid');
  const out: Array<{ chunk: StoredChunk; raw: number; vector?: Float32Array; tokens?: string; termHashes?: Uint32Array; pairHashes?: Uint32Array }> = [];
  for (let i = 0; i < table.numRows; i++) {
    const doc = docId.get(i) as string;
    const packed = pack.at(i);
    const raw = score ? Number(score.get(i)) : Number.NaN;
    if (pack.present && !packed && (unpacked || !chunkIndex || !chunkset || !tokenCount)) {
      if (!unpacked || !rowIds) throw new Error('query result has a row without its pack and without its chunk columns');
      unpacked.push({ rowId: BigInt(rowIds.get(i) as bigint), raw });
      continue;
    }
    const index = packed ? packed.chunkIndex : (chunkIndex!.get(i) as number);
    if (keep && !keep(doc, index)) continue;
    const chunk: StoredChunk = {
      id: id ? (id.get(i) as string) : chunkId(doc, index),
      doc_id: doc,
      source_job_id: job ? (job.get(i) as string) : '',
      chunk_index: index,
      chunkset_index: packed ? packed.chunksetIndex : (chunkset!.get(i) as number),
      page_start: pageStart ? (pageStart.get(i) as number) : 0,
      page_end: pageEnd ? (pageEnd.get(i) as number) : 0,
      heading_path: heading ? (heading.get(i) as string) : '',
      content: content ? (content.get(i) as string) : '',
      token_count: packed ? packed.tokenCount : (tokenCount!.get(i) as number),
    };
    if (!content) chunk.textOmitted = true;
    const { layout, bibliography } = packed ?? stored.at(i);
    if (layout) chunk.layout = layout;
    if (bibliography !== undefined) chunk.bibliography = bibliography;
    if (rowIds) chunk.rowId = BigInt(rowIds.get(i) as bigint);
    const termHashes = packed ? packed.termHashes : terms.at(i);
    const vector = packed ? packed.vector : vectors ? readVector(vectors.get(i)) : undefined;
    out.push({
      chunk,
      raw,
      ...(vector ? { vector } : {}),
      ...(lexical ? { tokens: lexical.get(i) as string } : {}),
      ...(termHashes ? { termHashes } : {}),
      ...(packed?.pairHashes ? { pairHashes: packed.pairHashes } : {}),
    });
  }
  return out;
}

/**
 * Read layout-only rows (LAYOUT_COLUMNS) as StoredChunk: `id` derived as `${doc_id}:${chunk_index}`,
 * `content`, `heading_path` and `source_job_id` empty (see ReadOptions.text); `rowId` where the result has
 * `_rowid`; with `keep`, only the rows it accepts.
 */
export function arrowToLayout(table: ArrowTable, keep?: RowTest): StoredChunk[] {
  if (table.numRows === 0) return [];
  const [docId, chunkIndex, chunkset, pageStart, pageEnd, tokenCount] = LAYOUT_COLUMNS.map((name) => {
    const c = table.getChild(name);
    if (!c) throw new Error(`query result lacks column ${name}`);
    return c;
  });
  const rowIds = table.getChild('_rowid');
  const out: StoredChunk[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const doc = docId.get(i) as string;
    const index = chunkIndex.get(i) as number;
    if (keep && !keep(doc, index)) continue;
    const chunk: StoredChunk = {
      id: chunkId(doc, index), doc_id: doc, source_job_id: '', chunk_index: index, chunkset_index: chunkset.get(i) as number,
      page_start: pageStart.get(i) as number, page_end: pageEnd.get(i) as number, heading_path: '', content: '', token_count: tokenCount.get(i) as number, textOmitted: true,
    };
    if (rowIds) chunk.rowId = BigInt(rowIds.get(i) as bigint);
    out.push(chunk);
  }
  return out;
}

/** A `vector` cell (FixedSizeList<Float32>, rowsToArrow's type) as a Float32Array view on the Arrow buffer. */
function readVector(cell: unknown): Float32Array {
  return (cell as { toArray(): Float32Array }).toArray();
}
