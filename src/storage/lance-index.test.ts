// Tests for the LanceDB NamespaceIndex against a real LanceDB database in a temp dir, with chunk text
// from the SciFact corpus (../shared/data/beir/scifact). Covers writes, BM25 and vector ranking,
// prefilters, deletes, signature checks, literal token matching, ANN build and dropNamespace.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLanceIndex, type LanceNamespaceIndex } from './lance-index.ts';
import { lexicalFoldDue } from './lance-writes.ts';
import type { ChunkRecord, EmbeddingSignature, StoredChunk } from './namespace-index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(repoRoot, '../shared/data/beir/scifact/corpus.jsonl');
const DIM = 8;
const SIG: EmbeddingSignature = { provider: 'test', model: 'hash-8', dimension: DIM };

let dir: string;
let index: LanceNamespaceIndex;
let docs: Array<{ id: string; title: string; text: string }>;

/** Deterministic unit vector from a string (FNV-seeded xorshift). */
function vec(seed: string): Float32Array {
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) {
    h ^= h << 13; h ^= h >>> 17; h ^= h << 5;
    v[i] = ((h >>> 0) / 2 ** 32) * 2 - 1;
  }
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const tokenize = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** Chunks of one SciFact document: title, then the text split in two halves. */
function chunksOf(doc: { id: string; title: string; text: string }, job = 'job_1', docId = doc.id): ChunkRecord[] {
  const mid = Math.floor(doc.text.length / 2);
  const parts = [doc.title, doc.text.slice(0, mid), doc.text.slice(mid)];
  return parts.map((content, i) => ({
    id: `${docId}:${i}`, doc_id: docId, source_job_id: job, chunk_index: i, chunkset_index: 0,
    page_start: 1, page_end: 1, heading_path: doc.title, content, tokens: tokenize(content).join(' '),
    token_count: Math.ceil(content.length / 4), vector: vec(`${docId}:${i}`),
  }));
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lance-index-test-'));
  index = await openLanceIndex({ uri: dir, annThreshold: 150 });
  const lines = (await readFile(CORPUS, 'utf8')).split('\n').slice(0, 40).filter(Boolean);
  docs = lines.map((l) => { const d = JSON.parse(l); return { id: `d${d._id}`, title: d.title, text: d.text }; });
  for (const d of docs.slice(0, 30)) await index.addChunks('ns_main', chunksOf(d), SIG);
});

after(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

test('add / count / list / getChunks roundtrip', async () => {
  assert.equal(await index.countChunks('ns_main'), 90);
  assert.equal(await index.countChunks('ns_missing'), 0);
  assert.deepEqual(await index.listDocIds('ns_main'), docs.slice(0, 30).map((d) => d.id).sort());
  const got = await index.getChunks('ns_main', docs[3].id, 1, 2);
  assert.deepEqual(got.map((c) => c.chunk_index), [1, 2]);
  assert.equal(got[0].content + got[1].content, docs[3].text);
  assert.equal(got[0].heading_path, docs[3].title);
  assert.equal('vector' in got[0] || 'tokens' in got[0], false);
});

test('getChunkRanges reads several documents\' ranges in one call', async () => {
  const got = await index.getChunkRanges('ns_main', [{ docId: docs[3].id, from: 1, to: 2 }, { docId: docs[7].id, from: 0, to: 0 }, { docId: docs[8].id, from: 2, to: 1 }]);
  assert.deepEqual(got.map((c) => c.id).sort(), [`${docs[3].id}:1`, `${docs[3].id}:2`, `${docs[7].id}:0`].sort());
  const layout = await index.getChunkRanges('ns_main', [{ docId: docs[3].id, from: 1, to: 2 }], { text: false });
  const full = await index.getChunkRanges('ns_main', [{ docId: docs[3].id, from: 1, to: 2 }]);
  const bare = ({ textOmitted: _omitted, rowId: _rowId, ...c }: StoredChunk) => ({ ...c, content: '', heading_path: '', source_job_id: '' });
  assert.deepEqual(layout.map(bare).sort((a, b) => a.chunk_index - b.chunk_index), full.map(bare).sort((a, b) => a.chunk_index - b.chunk_index));
  assert.ok(layout.every((c) => c.content === '' && c.heading_path === '' && c.textOmitted) && full.every((c) => c.content !== '' && !c.textOmitted));
  // A layout read gives row addresses (the text of what is shown is then taken by address).
  assert.ok(layout.every((c) => typeof c.rowId === 'bigint'));
  assert.deepEqual((await index.getChunksAt('ns_main', layout)).map((c) => c.content).sort(), full.map((c) => c.content).sort());
  assert.deepEqual(await index.getChunkRanges('ns_main', []), []);
  assert.deepEqual(await index.getChunkRanges('ns_missing', [{ docId: docs[3].id, from: 0, to: 5 }]), []);
});

test('vector search returns cosine similarity, best first', async () => {
  const hits = await index.vectorSearch('ns_main', vec(`${docs[5].id}:2`), 5);
  assert.equal(hits.length, 5);
  assert.equal(hits[0].chunk.id, `${docs[5].id}:2`);
  assert.ok(Math.abs(hits[0].score - 1) < 1e-5);
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  // A query vector of another dimension (the namespace was built by another embedder): no vector hits.
  assert.deepEqual(await index.vectorSearch('ns_main', new Float32Array(3), 5), []);
});

test('vector and BM25 hits carry the stored vector of their chunk', async () => {
  const id = `${docs[7].id}:1`;
  const v = await index.vectorSearch('ns_main', vec(id), 3);
  const b = await index.bm25Search('ns_main', tokenize(docs[7].text.slice(0, 200)), 3);
  for (const h of [...v, ...b]) {
    assert.ok(h.vector instanceof Float32Array && h.vector.length === DIM);
    assert.deepEqual(Array.from(h.vector), Array.from(vec(h.chunk.id)), h.chunk.id);
  }
  assert.ok(b.length > 0);
});

test('BM25 ranks the chunk holding the query terms first', async () => {
  const target = docs[7];
  const hits = await index.bm25Search('ns_main', tokenize(target.title), 5);
  assert.equal(hits[0].chunk.id, `${target.id}:0`);
  assert.ok(hits[0].score > 0 && hits[0].score >= hits[hits.length - 1].score);
  assert.deepEqual(await index.bm25Search('ns_main', ['zzzqqq'], 5), []);
  assert.deepEqual(await index.bm25Search('ns_main', [], 5), []);
});

test('filters apply before ranking (in / not in / empty, quoted ids)', async () => {
  const a = docs[7];
  const q = tokenize(a.title);
  // b: a matching document ranked far below a, so a postfilter on the top-1 would return nothing.
  const all = await index.bm25Search('ns_main', q, 100);
  const b = docs.find((d) => d.id === all.filter((h) => h.chunk.doc_id !== a.id).at(-1)!.chunk.doc_id)!;
  const onlyB = await index.bm25Search('ns_main', q, 1, { docIds: [b.id] });
  assert.equal(onlyB.length, 1);
  assert.equal(onlyB[0].chunk.doc_id, b.id);
  const notA = await index.bm25Search('ns_main', q, 10, { excludeDocIds: [a.id] });
  assert.ok(notA.length > 0 && notA.every((h) => h.chunk.doc_id !== a.id));
  const vOnlyB = await index.vectorSearch('ns_main', vec(`${a.id}:1`), 1, { docIds: [b.id] });
  assert.equal(vOnlyB[0].chunk.doc_id, b.id);
  const vNotA = await index.vectorSearch('ns_main', vec(`${a.id}:1`), 5, { excludeDocIds: [a.id] });
  assert.ok(vNotA.every((h) => h.chunk.doc_id !== a.id));
  assert.deepEqual(await index.vectorSearch('ns_main', vec('x'), 5, { docIds: [] }), []);
  assert.deepEqual(await index.bm25Search('ns_main', q, 5, { docIds: [] }), []);
  const odd = "it's \\ \"odd\" id";
  await index.addChunks('ns_main', chunksOf(docs[35], 'job_q', odd), SIG);
  const hits = await index.bm25Search('ns_main', tokenize(docs[35].title), 3, { docIds: [odd, "x' OR '1'='1"] });
  assert.deepEqual(hits.map((h) => h.chunk.doc_id), [odd, odd, odd].slice(0, hits.length));
  assert.equal(await index.deleteDocument('ns_main', odd), 3);
});

test('rows added after the index was optimised are found, before and after optimize()', async () => {
  await index.optimize('ns_main');
  const late = docs[31];
  await index.addChunks('ns_main', chunksOf(late, 'job_late'), SIG);
  const before = await index.bm25Search('ns_main', tokenize(late.title), 1);
  assert.equal(before[0].chunk.id, `${late.id}:0`);
  await index.optimize('ns_main');
  const afterOpt = await index.bm25Search('ns_main', tokenize(late.title), 1);
  assert.equal(afterOpt[0].chunk.id, `${late.id}:0`);
  assert.ok(Math.abs(afterOpt[0].score - before[0].score) < 1e-3);
  assert.equal(await index.deleteByJob('ns_main', 'job_late'), 3);
});

test('BM25 ranking holds when every indexed row is deleted and new rows are unindexed', async () => {
  await index.addChunks('ns_rank', chunksOf(docs[0]), SIG); // the FTS index is built over these rows
  for (const d of docs.slice(1, 25)) await index.addChunks('ns_rank', chunksOf(d), SIG); // scanned, unindexed
  assert.equal(await index.deleteDocument('ns_rank', docs[0].id), 3);
  for (const d of [docs[9], docs[17], docs[24]]) {
    const hits = await index.bm25Search('ns_rank', tokenize(d.title), 3);
    assert.equal(hits[0].chunk.id, `${d.id}:0`);
    assert.ok(hits[0].score >= hits[1].score && hits[1].score >= hits[2].score);
  }
});

test('delete counts', async () => {
  await index.addChunks('ns_del', [...chunksOf(docs[0], 'j1'), ...chunksOf(docs[1], 'j2')], SIG);
  await index.addChunks('ns_del', chunksOf(docs[2], 'j2'), SIG);
  assert.equal(await index.deleteDocument('ns_del', docs[0].id), 3);
  assert.equal(await index.deleteDocument('ns_del', docs[0].id), 0);
  assert.equal(await index.deleteByJob('ns_del', 'j2'), 6);
  assert.equal(await index.countChunks('ns_del'), 0);
  assert.equal(await index.deleteDocument('ns_nope', 'x'), 0);
});

test('embedding signature mismatch is refused, naming both models', async () => {
  const other: EmbeddingSignature = { provider: 'test', model: 'other-model', dimension: DIM };
  await assert.rejects(index.addChunks('ns_main', chunksOf(docs[32]), other), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'embedder_mismatch');
    assert.match(err.message, /hash-8/);
    assert.match(err.message, /other-model/);
    return true;
  });
  assert.deepEqual(await index.getSignature('ns_main'), SIG);
});

test('tokens are matched literally (no query syntax)', async () => {
  const special = ['c++', 'and', 'not', '-', 'a:b', '"', 'AND', "x'y", 'foo*', '(x)'];
  const rows = special.map((tok, i) => ({ ...chunksOf(docs[0], 'js', `s${i}`)[0], tokens: `${tok} filler${i}` }));
  await index.addChunks('ns_special', rows, SIG);
  for (const [i, tok] of special.entries()) {
    const hits = await index.bm25Search('ns_special', [tok], 5);
    assert.deepEqual(hits.map((h) => h.chunk.doc_id), [`s${i}`], `token ${tok}`);
  }
  const two = await index.bm25Search('ns_special', ['c++', '"'], 5);
  assert.deepEqual(two.map((h) => h.chunk.doc_id).sort(), ['s0', 's5']);
});

test('tied scores come back in a stable order (doc id, chunk index), also across the cut of the limit', async () => {
  // 40 documents, each written on its own, with the same text and vector: every search ties them all.
  const same = (docId: string): ChunkRecord => ({ ...chunksOf(docs[0], 'jt', docId)[1], vector: vec('tie'), tokens: 'lantern keeper lantern' });
  const ids = Array.from({ length: 40 }, (_, i) => `t${String((i * 17) % 40).padStart(2, '0')}`);
  for (const id of ids) await index.addChunks('ns_ties', [same(id)], SIG);
  await index.refreshLexical('ns_ties'); // every row in the FTS index: one BM25 statistic, exact ties
  const sorted = [...ids].sort();
  for (let round = 0; round < 6; round++) {
    for (const limit of [40, 25, 12]) { // 40 tied rows: within TIE_WIDEN (4) times each limit
      const b = await index.bm25Search('ns_ties', ['lantern'], limit);
      assert.deepEqual(b.map((h) => h.chunk.doc_id), sorted.slice(0, limit), `BM25 limit ${limit}, round ${round}`);
      assert.equal(new Set(b.map((h) => h.score)).size, 1);
      const v = await index.vectorSearch('ns_ties', vec('tie'), 40);
      assert.deepEqual(v.map((h) => h.chunk.doc_id), sorted, `vector, round ${round}`);
    }
  }
});

test('parallel writers to one namespace all land; ANN index built past the threshold', async () => {
  await Promise.all(docs.slice(0, 30).map((d) => index.addChunks('ns_par', chunksOf(d), SIG)));
  await Promise.all(docs.slice(0, 30).map((d) => index.addChunks('ns_par', chunksOf(d, 'j2', `${d.id}b`), SIG)));
  assert.equal(await index.countChunks('ns_par'), 180);
  await index.optimize('ns_par');
  const hits = await index.vectorSearch('ns_par', vec(`${docs[9].id}:1`), 10, { excludeDocIds: [docs[1].id] });
  assert.equal(hits[0].chunk.id, `${docs[9].id}:1`);
  assert.ok(Math.abs(hits[0].score - 1) < 1e-3);
  // Scores must be exact cosines, best first, whatever the index (IVF_HNSW_SQ's unrefined `_distance` is quantised).
  const q = vec('rescoring query');
  const ranked = await index.vectorSearch('ns_par', q, 50);
  assert.equal(ranked.length, 50);
  for (const [i, h] of ranked.entries()) {
    const stored = vec(h.chunk.id);
    const exact = stored.reduce((s, x, k) => s + x * q[k], 0);
    assert.ok(Math.abs(h.score - exact) < 1e-5, `${h.chunk.id}: score ${h.score}, exact cosine ${exact}`);
    if (i > 0) assert.ok(ranked[i - 1].score >= h.score, 'best first');
  }
  const lancedb = await import('@lancedb/lancedb');
  const table = await (await lancedb.connect(dir)).openTable('ns_par');
  assert.ok((await table.listIndices()).some((i) => i.columns.includes('vector')), 'vector index built');
  table.close();
});

test('refreshLexical leaves a few rows to the scan, scored as they are once folded in, and folds many', async () => {
  assert.equal(lexicalFoldDue({ numIndexedRows: 19_999, numUnindexedRows: 1 }, 4000), true, 'small tables always fold');
  assert.equal(lexicalFoldDue({ numIndexedRows: 100_000, numUnindexedRows: 4000 }, 4000), false);
  assert.equal(lexicalFoldDue({ numIndexedRows: 100_000, numUnindexedRows: 4001 }, 4000), true);
  assert.equal(lexicalFoldDue({ numIndexedRows: 30_000, numUnindexedRows: 3000 }, 4000), false);
  assert.equal(lexicalFoldDue({ numIndexedRows: 30_000, numUnindexedRows: 6001 }, 10_000), true, '20% of the indexed rows');
  // 36 documents (108 rows) indexed; 2 more (6 rows, under 20% of the indexed) stay outside the index
  // (scanning from 50 indexed rows here; 20 000 by default).
  const lancedb = await import('@lancedb/lancedb');
  const scan = await openLanceIndex({ uri: dir, lexicalScanRows: 100, lexicalScanFromRows: 50 });
  for (const d of docs.slice(0, 36)) await scan.addChunks('ns_scan', chunksOf(d), SIG);
  await scan.refreshLexical('ns_scan');
  for (const d of docs.slice(36, 38)) await scan.addChunks('ns_scan', chunksOf(d), SIG);
  await scan.refreshLexical('ns_scan');
  const table = await (await lancedb.connect(dir)).openTable('ns_scan');
  assert.equal((await table.indexStats('tokens_idx'))?.numUnindexedRows, 6);
  const query = tokenize(docs[37].title);
  const outside = await scan.bm25Search('ns_scan', query, 5);
  assert.equal(outside[0].chunk.doc_id, docs[37].id, 'found at once');
  await scan.optimize('ns_scan');
  const folded = await scan.bm25Search('ns_scan', query, 5);
  const scoreOf = (hits: typeof outside, id: string) => hits.find((h) => h.chunk.id === id)?.score;
  for (const h of outside.filter((x) => x.chunk.doc_id === docs[37].id)) {
    assert.ok(Math.abs(h.score - scoreOf(folded, h.chunk.id)!) < 1e-4 * h.score, `${h.chunk.id}: ${h.score} outside, ${scoreOf(folded, h.chunk.id)} folded`);
  }
  // Past the bound (here 100 rows), a refresh folds everything in.
  for (const d of docs.slice(0, 36)) await scan.addChunks('ns_scan', chunksOf(d, 'job_2', `${d.id}-again`), SIG);
  await scan.refreshLexical('ns_scan');
  await table.checkoutLatest();
  assert.equal((await table.indexStats('tokens_idx'))?.numUnindexedRows, 0);
  table.close();
  await scan.close();
});

test('background optimize runs after N writes and close() waits for it', async () => {
  const errors: unknown[] = [];
  const auto = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 2, onMaintenanceError: (_ns, e) => errors.push(e) });
  for (const d of docs.slice(0, 4)) await auto.addChunks('ns_auto', chunksOf(d), SIG);
  await auto.close();
  assert.deepEqual(errors, []);
  const lancedb = await import('@lancedb/lancedb');
  const table = await (await lancedb.connect(dir)).openTable('ns_auto');
  const stats = await table.indexStats('tokens_idx');
  assert.equal(await table.countRows(), 12);
  assert.ok(stats && stats.numUnindexedRows <= 6, `unindexed ${stats?.numUnindexedRows}`); // optimised at least once
  table.close();
});

test('dropNamespace is idempotent and frees the name', async () => {
  await index.addChunks('ns_drop', chunksOf(docs[0]), SIG);
  await index.dropNamespace('ns_drop');
  await index.dropNamespace('ns_drop');
  assert.equal(await index.countChunks('ns_drop'), 0);
  assert.deepEqual(await index.bm25Search('ns_drop', ['the'], 5), []);
  const sig4 = { provider: 'test', model: 'other', dimension: 4 };
  await index.addChunks('ns_drop', chunksOf(docs[0]).map((r) => ({ ...r, vector: new Float32Array([1, 0, 0, 0]) })), sig4);
  assert.deepEqual(await index.getSignature('ns_drop'), sig4);
  await assert.rejects(index.countChunks('bad name;'), { code: 'internal_error' });  // a second instance (another process) drops the table under this instance's cached handle
  const other = await openLanceIndex({ uri: dir });
  await other.dropNamespace('ns_drop');
  await index.addChunks('ns_drop', chunksOf(docs[1]), SIG); // stale handle: reopened, table recreated
  assert.equal(await other.countChunks('ns_drop'), 3);
  assert.equal((await index.bm25Search('ns_drop', tokenize(docs[1].title), 1))[0].chunk.doc_id, docs[1].id);
  await other.dropNamespace('ns_drop');
  assert.equal(await index.countChunks('ns_drop'), 0);
  assert.deepEqual(await index.bm25Search('ns_drop', ['the'], 5), []);
  await other.close();
});
