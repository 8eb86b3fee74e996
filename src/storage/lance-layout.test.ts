// The stored-layout columns (lance-layout.ts) on a real LanceDB table: search reads without text return the
// layout and bibliography flag instead; a table written before the columns existed is read as before
// (text included, no layout); the first write of this code adds the columns, and that table's older rows
// then come with their text (their flag is computed from it) while newer rows come without.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openLanceIndex, type LanceNamespaceIndex } from './lance-index.ts';
import { chunkSchema, rowsToArrow } from './lance-arrow.ts';
import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import { LAYOUT_COLUMN, LAYOUT_STORE_COLUMNS, TERMS_COLUMN, layoutColumnData, layoutReader } from './lance-layout.ts';
import { termHashSet } from '../analysis/term-hash.ts';
import { PACK_COLUMN } from './lance-pack.ts';
import type { ChunkRecord, StoredChunk } from './namespace-index.ts';
import { withSearchLayout } from '../ingest/chunk-rows.ts';
import { isBibliographyChunk } from '../search/stages/section-prior.ts';

const { Table: ArrowTable, makeVector } = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;
const SIG = { provider: 'test', model: 'unit-4', dimension: 4 };
let dir: string;
let index: LanceNamespaceIndex;

/** Rows of one document: two body chunks, then a reference list. */
function docRows(docId: string): ChunkRecord[] {
  const row = (i: number, set: number, heading: string, content: string): ChunkRecord => ({
    id: `${docId}:${i}`, doc_id: docId, source_job_id: 'job', chunk_index: i, chunkset_index: set, page_start: 1, page_end: 2,
    heading_path: heading, content, tokens: 'alpha beta', token_count: 10 + i, vector: new Float32Array([1, i, 0, 0]),
  });
  return [row(0, 0, 'Intro', 'alpha text'), row(1, 0, 'Intro', 'beta text'), row(2, 1, 'Paper > References', '[1] A. Author, 2001.')];
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lance-layout-test-'));
  // A table as the code before the stored layout wrote it: no layout columns.
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(dir);
  const full = chunkSchema(SIG);
  const Schema = full.constructor as new (fields: typeof full.fields, metadata: Map<string, string>) => typeof full;
  const old = new Schema(full.fields.filter((f) => !(LAYOUT_STORE_COLUMNS as readonly string[]).includes(f.name) && f.name !== PACK_COLUMN), full.metadata);
  const table = await db.createEmptyTable('ns_old', old);
  await table.add(rowsToArrow(docRows('old'), old));
  table.close();
  // A table written before the term-hash column: the layout column, not the term hashes.
  const mid = new Schema(full.fields.filter((f) => f.name !== TERMS_COLUMN && f.name !== PACK_COLUMN), full.metadata);
  const midTable = await db.createEmptyTable('ns_mid', mid);
  await midTable.add(rowsToArrow(withSearchLayout(docRows('mid')), mid));
  midTable.close();
  db.close();
  index = await openLanceIndex({ uri: dir });
});

after(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

const lean = { text: false } as const;

test('a new table: search reads carry the layout and the bibliography flag, with or without the text', async () => {
  await index.addChunks('ns_new', withSearchLayout(docRows('new')), SIG);
  const hits = await index.vectorSearch('ns_new', new Float32Array([1, 0, 0, 0]), 10, undefined, lean);
  const bm25 = await index.bm25Search('ns_new', ['alpha'], 10, undefined, undefined, lean);
  for (const { chunk } of [...hits, ...bm25]) {
    assert.equal(chunk.textOmitted, true);
    assert.equal(chunk.content, '');
    assert.ok(chunk.layout);
    assert.equal(chunk.bibliography, chunk.chunk_index === 2);
    // No id or page columns are read (SEARCH_COLUMNS): the id is derived as ingest writes it, the pages
    // are 0 until the response reads the shown chunks again.
    assert.equal(chunk.id, `new:${chunk.chunk_index}`);
    assert.deepEqual([chunk.page_start, chunk.page_end], [0, 0]);
  }
  // Coverage reads the stored term hashes, not the term string.
  for (const h of [...hits, ...bm25]) {
    assert.equal(h.tokens, undefined);
    assert.deepEqual([...h.termHashes!], [...termHashSet('alpha beta')]);
  }
  const c0 = hits.find((h) => h.chunk.chunk_index === 0)!.chunk;
  // The neighbours' token counts span the document (chunk 2 is in another chunkset), marked docWide.
  assert.deepEqual({ ...c0.layout!, near: Array.from(c0.layout!.near) }, { setFirst: 0, setLast: 1, setTokens: 21, nearFrom: 0, near: [10, 11, 12], docWide: true });
  const c2 = hits.find((h) => h.chunk.chunk_index === 2)!.chunk;
  assert.deepEqual({ ...c2.layout!, near: Array.from(c2.layout!.near) }, { setFirst: 2, setLast: 2, setTokens: 12, nearFrom: 0, near: [10, 11, 12], docWide: true });
  // The flag is what the text says, with the text or without it.
  const full = await index.vectorSearch('ns_new', new Float32Array([1, 0, 0, 0]), 10);
  for (const { chunk } of full) {
    assert.ok(chunk.content.length > 0 && !chunk.textOmitted && chunk.layout !== undefined && typeof chunk.rowId === 'bigint');
    assert.deepEqual([chunk.id, chunk.page_start, chunk.page_end], [`new:${chunk.chunk_index}`, 1, 2]);
    assert.equal(isBibliographyChunk({ heading_path: chunk.heading_path, content: chunk.content }), chunk.chunk_index === 2);
  }
  // Lean with text (the advanced tier): the text and heading a reranker reads, no job id or page span.
  const leanText = await index.bm25Search('ns_new', ['alpha'], 10, undefined, undefined, { text: true, lean: true });
  assert.equal(leanText.length, 3);
  for (const { chunk } of leanText) {
    const stored = docRows('new')[chunk.chunk_index];
    assert.deepEqual([chunk.content, chunk.heading_path, chunk.textOmitted], [stored.content, stored.heading_path, undefined]);
    assert.deepEqual([chunk.id, chunk.source_job_id, chunk.page_start, chunk.page_end, chunk.token_count], [stored.id, '', 0, 0, stored.token_count]);
    assert.ok(chunk.layout && chunk.bibliography === (chunk.chunk_index === 2));
  }
});

test('a table written before the layout columns is read as before, and its first new write adds them', async () => {
  const before = await index.vectorSearch('ns_old', new Float32Array([1, 0, 0, 0]), 10, undefined, lean);
  assert.equal(before.length, 3);
  for (const { chunk } of before) {
    assert.ok(chunk.content.length > 0 && !chunk.textOmitted && chunk.layout === undefined && chunk.bibliography === undefined);
  }
  await index.addChunks('ns_old', withSearchLayout(docRows('newer')), SIG);
  const mixed = await index.bm25Search('ns_old', ['alpha'], 10, undefined, undefined, lean);
  assert.equal(mixed.length, 6);
  for (const { chunk } of mixed) {
    if (chunk.doc_id === 'old') assert.ok(chunk.content.length > 0 && !chunk.textOmitted && chunk.layout === undefined && chunk.bibliography === undefined);
    else assert.ok(chunk.textOmitted && chunk.layout !== undefined && chunk.bibliography === (chunk.chunk_index === 2));
  }
  assert.deepEqual(mixed.filter((h) => h.chunk.doc_id === 'old').map((h) => isBibliographyChunk(h.chunk)).sort(), [false, false, true]);
  // Rows of before: their term string; newer rows: their term hashes.
  for (const h of mixed) {
    if (h.chunk.doc_id === 'old') assert.ok(h.tokens === 'alpha beta' && h.termHashes === undefined);
    else assert.ok(h.tokens === undefined && h.termHashes!.length === 2);
  }
});

test('a table with the layout but without term hashes reads term strings; after its first new write, old rows get theirs by address', async () => {
  const before = await index.vectorSearch('ns_mid', new Float32Array([1, 0, 0, 0]), 10, undefined, lean);
  assert.equal(before.length, 3);
  for (const h of before) assert.ok(h.chunk.textOmitted && h.chunk.layout !== undefined && h.tokens === 'alpha beta' && h.termHashes === undefined);
  await index.addChunks('ns_mid', withSearchLayout(docRows('newer')), SIG);
  const mixed = await index.bm25Search('ns_mid', ['alpha'], 10, undefined, undefined, lean);
  assert.equal(mixed.length, 6);
  for (const h of mixed) {
    assert.ok(h.chunk.textOmitted && h.chunk.layout !== undefined);
    if (h.chunk.doc_id === 'mid') assert.ok(h.tokens === 'alpha beta' && h.termHashes === undefined);
    else assert.ok(h.tokens === undefined && h.termHashes!.length === 2);
  }
});

test('getChunksAt takes rows by their address, checks them, and reads the rest (wrong or stale addresses) by range', async () => {
  await index.addChunks('ns_take', withSearchLayout([...docRows('a'), ...docRows('b')]), SIG);
  const hits = await index.vectorSearch('ns_take', new Float32Array([1, 0, 0, 0]), 10, undefined, lean);
  assert.ok(hits.every((h) => typeof h.chunk.rowId === 'bigint'));
  const a0 = hits.find((h) => h.chunk.doc_id === 'a' && h.chunk.chunk_index === 0)!.chunk;
  const b2 = hits.find((h) => h.chunk.doc_id === 'b' && h.chunk.chunk_index === 2)!.chunk;
  const text = (cs: Array<{ doc_id: string; chunk_index: number; content: string }>) => cs.map((c) => `${c.doc_id}:${c.chunk_index}:${c.content}`).sort();
  const want = ['a:0:alpha text', 'a:1:beta text', 'b:2:[1] A. Author, 2001.'];
  // Right address, a neighbour's guessed address, a wrong one (b:2's row for a:1), and none at all.
  assert.deepEqual(text(await index.getChunksAt('ns_take', [a0, { doc_id: 'a', chunk_index: 1, rowId: a0.rowId! + 1n }, { doc_id: 'b', chunk_index: 2 }])), want);
  assert.deepEqual(text(await index.getChunksAt('ns_take', [a0, { doc_id: 'a', chunk_index: 1, rowId: b2.rowId }, { doc_id: 'b', chunk_index: 2, rowId: 1n << 40n }])), want);
  // `shown`: the same text, pages, headings, token counts and ids as the full rows, without the job.
  const refs = [a0, { doc_id: 'a', chunk_index: 1, rowId: a0.rowId! + 1n }, b2];
  const key = (c: StoredChunk) => `${c.doc_id}:${c.chunk_index}`;
  const full = new Map((await index.getChunksAt('ns_take', refs)).map((c) => [key(c), c]));
  const shown = await index.getChunksAt('ns_take', refs, { shown: true });
  assert.equal(shown.length, 3);
  for (const c of shown) {
    const f = full.get(key(c))!;
    assert.deepEqual([c.id, c.content, c.page_start, c.page_end, c.token_count, c.chunkset_index, c.heading_path], [f.id, f.content, f.page_start, f.page_end, f.token_count, f.chunkset_index, f.heading_path]);
    assert.ok(f.heading_path !== '' && c.source_job_id === '' && !c.textOmitted);
  }
  // A deleted document's rows are not returned, whatever address they had.
  await index.deleteDocument('ns_take', 'a');
  assert.deepEqual(text(await index.getChunksAt('ns_take', [a0, b2])), ['b:2:[1] A. Author, 2001.']);
});

test('the stored layout: a chunkset-only window (older rows) reads back without docWide; a document-wide one puts every count at a negative index for a reader that predates the mark', () => {
  const rows = docRows('enc');
  const field = chunkSchema(SIG).fields.find((f) => f.name === LAYOUT_COLUMN)!;
  rows[0].bibliography = false;
  rows[0].layout = { setFirst: 0, setLast: 1, setTokens: 21, nearFrom: 0, near: [10, 11] };
  rows[1].bibliography = true;
  rows[1].layout = { setFirst: 0, setLast: 1, setTokens: 21, nearFrom: 0, near: [10, 11, 12], docWide: true };
  const data = layoutColumnData(field, rows.slice(0, 2))!;
  const table = new ArrowTable({ [LAYOUT_COLUMN]: makeVector(data) });
  const read = layoutReader(table);
  assert.deepEqual({ ...read.at(0).layout!, near: Array.from(read.at(0).layout!.near) }, { setFirst: 0, setLast: 1, setTokens: 21, nearFrom: 0, near: [10, 11] });
  assert.deepEqual({ ...read.at(1).layout!, near: Array.from(read.at(1).layout!.near) }, { setFirst: 0, setLast: 1, setTokens: 21, nearFrom: 0, near: [10, 11, 12], docWide: true });
  assert.equal(read.at(1).bibliography, true);
  // A reader that takes the stored nearFrom as is puts every count below index 0.
  const bytes = table.getChild(LAYOUT_COLUMN)!.get(1) as Uint8Array;
  const storedFrom = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(16, true);
  assert.ok(storedFrom + 3 - 1 < 0);
});
