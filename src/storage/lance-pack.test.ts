// The packed search column (lance-pack.ts): cells round-trip, and on a real LanceDB table a packed table's
// search reads return exactly what a table of the separate columns returns; rows an older process wrote
// into a packed table (no pack) are read again by address and keep their place in the score order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openLanceIndex, type LanceNamespaceIndex } from './lance-index.ts';
import { chunkSchema, rowsToArrow } from './lance-arrow.ts';
import { decodePack, encodePack, PACK_COLUMN, PACK_VERSION } from './lance-pack.ts';
import { FTS_OPTIONS } from './lance-maintenance.ts';
import { pairHashSet, termHashSet } from '../analysis/term-hash.ts';
import { withSearchLayout } from '../ingest/chunk-rows.ts';
import type { ChunkRecord, IndexHit, ReadOptions } from './namespace-index.ts';

const SIG = { provider: 'test', model: 'unit-4', dimension: 4 };
let dir: string;
let index: LanceNamespaceIndex;

/** Rows of one document: two body chunks, then a reference list; term hashes as ingest stores them. */
function docRows(docId: string): ChunkRecord[] {
  const row = (i: number, set: number, heading: string, content: string, tokens: string): ChunkRecord => ({
    id: `${docId}:${i}`, doc_id: docId, source_job_id: 'job', chunk_index: i, chunkset_index: set, page_start: 1, page_end: 2,
    heading_path: heading, content, tokens, token_count: 10 + i, vector: new Float32Array([1, i, 0.5 - i, 0.25]), term_hashes: termHashSet(tokens),
    pair_hashes: pairHashSet(tokens, new Set()),
  });
  return withSearchLayout([
    row(0, 0, 'Intro', 'alpha text', 'alpha text'),
    row(1, 0, 'Intro', 'beta text', 'beta alpha alpha'),
    row(2, 1, 'Paper > References', '[1] A. Author, 2001.', 'alpha author 2001'),
  ]);
}

/** The schema of a table created before the packed column existed. */
function legacySchema() {
  const full = chunkSchema(SIG);
  const Schema = full.constructor as new (fields: typeof full.fields, metadata: Map<string, string>) => typeof full;
  return new Schema(full.fields.filter((f) => f.name !== PACK_COLUMN), full.metadata);
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lance-pack-test-'));
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(dir);
  const schema = legacySchema();
  const table = await db.createEmptyTable('ns_legacy', schema);
  await table.add(rowsToArrow([...docRows('a'), ...docRows('b')], schema));
  await table.createIndex('tokens', { config: lancedb.Index.fts(FTS_OPTIONS) });
  table.close();
  db.close();
  index = await openLanceIndex({ uri: dir });
  await index.addChunks('ns_packed', [...docRows('a'), ...docRows('b')], SIG);
});

after(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

test('a packed cell round-trips every field, with and without a layout and term hashes, aligned or not', () => {
  const [r0] = docRows('d');
  const back = decodePack(encodePack(r0))!;
  assert.deepEqual([back.chunkIndex, back.chunksetIndex, back.tokenCount, back.bibliography], [0, 0, 10, false]);
  assert.deepEqual(Array.from(back.vector), Array.from(r0.vector));
  assert.deepEqual(Array.from(back.termHashes!), Array.from(r0.term_hashes!));
  assert.deepEqual({ ...back.layout!, near: Array.from(back.layout!.near) }, { ...r0.layout!, near: Array.from(r0.layout!.near) });
  const bare: ChunkRecord = { ...r0, layout: undefined, bibliography: undefined, term_hashes: undefined, pair_hashes: undefined };
  const b = decodePack(encodePack(bare))!;
  assert.deepEqual([b.layout, b.bibliography, b.termHashes, Array.from(b.vector)], [undefined, undefined, undefined, Array.from(r0.vector)]);
  // A cell at an odd offset of its buffer (Arrow does not promise alignment): decoded from a copy.
  const cell = encodePack(r0);
  const shifted = new Uint8Array(cell.byteLength + 1);
  shifted.set(cell, 1);
  const odd = decodePack(shifted.subarray(1))!;
  assert.deepEqual([Array.from(odd.vector), Array.from(odd.termHashes!), odd.layout!.setTokens], [Array.from(r0.vector), Array.from(r0.term_hashes!), r0.layout!.setTokens]);
  // Pair hashes (format 2) round-trip after the term hashes, with or without them.
  const paired: ChunkRecord = { ...r0, pair_hashes: pairHashSet('alpha beta gamma', new Set()) };
  const pb = decodePack(encodePack(paired))!;
  assert.deepEqual([Array.from(pb.pairHashes!), Array.from(pb.termHashes!)], [Array.from(paired.pair_hashes!), Array.from(r0.term_hashes!)]);
  const pairsOnly = decodePack(encodePack({ ...paired, term_hashes: undefined }))!;
  assert.deepEqual([pairsOnly.termHashes, Array.from(pairsOnly.pairHashes!)], [undefined, Array.from(paired.pair_hashes!)]);
  assert.equal(b.pairHashes, undefined);
  // A format-1 cell (tables written before pairs existed): 7 header values, no pair hashes; still read.
  const v2 = encodePack({ ...r0, pair_hashes: undefined });
  const h = new DataView(v2.buffer);
  const v1 = new Uint8Array(v2.byteLength - 4);
  const v1view = new DataView(v1.buffer);
  for (let k = 0; k < 7; k++) v1view.setInt32(4 * k, k === 0 ? 1 : h.getInt32(4 * k, true), true);
  v1.set(v2.subarray(32), 28);
  const old = decodePack(v1)!;
  assert.deepEqual([old.chunkIndex, old.tokenCount, Array.from(old.vector), Array.from(old.termHashes!), old.pairHashes], [0, 10, Array.from(r0.vector), Array.from(r0.term_hashes!), undefined]);
  // Another version or a truncated cell is not read as a pack.
  const other = encodePack(r0);
  new DataView(other.buffer).setInt32(0, PACK_VERSION + 1, true);
  assert.equal(decodePack(other), undefined);
  assert.equal(decodePack(encodePack(r0).subarray(0, 40)), undefined);
});

/** A hit as comparable plain data (rowId aside: the two tables place rows alike, but it is not the point). */
function plain(h: IndexHit) {
  const { rowId: _rowId, layout, ...chunk } = h.chunk;
  return {
    chunk: { ...chunk, layout: layout && { ...layout, near: Array.from(layout.near) } },
    score: h.score,
    vector: h.vector && Array.from(h.vector),
    tokens: h.tokens,
    termHashes: h.termHashes && Array.from(h.termHashes),
  };
}

const READS: Array<[string, ReadOptions]> = [['without text', { text: false }], ['lean with text', { text: true, lean: true }], ['full rows', {}]];

test('search reads of a packed table equal those of a table of separate columns, for every read kind', async () => {
  const q = new Float32Array([1, 0.5, 0, 0.25]);
  for (const [, opts] of READS) {
    const [pv, lv] = [await index.vectorSearch('ns_packed', q, 10, undefined, opts), await index.vectorSearch('ns_legacy', q, 10, undefined, opts)];
    const [pb, lb] = [await index.bm25Search('ns_packed', ['alpha'], 10, undefined, undefined, opts), await index.bm25Search('ns_legacy', ['alpha'], 10, undefined, undefined, opts)];
    assert.equal(pv.length, 6);
    assert.equal(pb.length, 6);
    assert.deepEqual(pv.map(plain), lv.map(plain));
    assert.deepEqual(pb.map(plain), lb.map(plain));
    for (const h of [...pv, ...pb]) assert.ok(h.vector && h.termHashes && h.chunk.layout && h.chunk.bibliography === (h.chunk.chunk_index === 2));
    // The packed table also returns the phrase-pair hashes (format 2); the separate columns have none.
    for (const h of [...pv, ...pb]) assert.deepEqual(Array.from(h.pairHashes ?? []), Array.from(pairHashSet(docRows('x')[h.chunk.chunk_index].tokens, new Set())));
    for (const h of [...lv, ...lb]) assert.equal(h.pairHashes, undefined);
  }
});

test('rows an older process wrote into a packed table (no pack) are read again by address and keep their score order', async () => {
  await index.addChunks('ns_mixed', docRows('new'), SIG);
  // An older writer knows no pack column: LanceDB stores null there, and the separate columns hold its values.
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(dir);
  const table = await db.openTable('ns_mixed');
  await table.add(rowsToArrow(docRows('old'), legacySchema()));
  table.close();
  db.close();
  const q = new Float32Array([1, 0.5, 0, 0.25]);
  for (const [, opts] of READS) {
    const vector = await index.vectorSearch('ns_mixed', q, 10, undefined, opts);
    const bm25 = await index.bm25Search('ns_mixed', ['alpha'], 10, undefined, undefined, opts);
    for (const [hits, kind] of [[vector, 'vector'], [bm25, 'bm25']] as const) {
      assert.equal(hits.length, 6);
      for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, 'score order');
      // An old row reads as the same row written new: same fields, vector, term hashes and layout.
      const byKey = new Map(hits.map((h) => [`${h.chunk.doc_id}:${h.chunk.chunk_index}`, plain(h)]));
      for (let i = 0; i < 3; i++) {
        const [o, n] = [byKey.get(`old:${i}`)!, byKey.get(`new:${i}`)!];
        // (BM25 scores differ: rows added after the FTS index was built are scored by a scan until it is rebuilt.)
        const same = (x: typeof o) => ({ ...x, chunk: { ...x.chunk, id: '', doc_id: '' }, score: kind === 'bm25' ? 0 : x.score });
        assert.deepEqual(same(o), same(n));
      }
    }
  }
});
