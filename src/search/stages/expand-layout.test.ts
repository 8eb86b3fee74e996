// Expansion planned from the layout stored on each chunk row against expansion planned from the
// chunkset rows read back, on real rows in a real LanceDB table: the same ranges, chunks and token counts
// for random hits, tightnesses and claims; no engine read when the stored windows suffice; and regions
// whose rows carry no layout (written before it was stored) still expand by reading.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openLanceIndex, type LanceNamespaceIndex } from '../../storage/lance-index.ts';
import type { ChunkRecord, NamespaceIndex, StoredChunk } from '../../storage/namespace-index.ts';
import { LAYOUT_WINDOW, withSearchLayout } from '../../ingest/chunk-rows.ts';
import { rng } from '../../../bench/lib/random.ts';
import type { Region } from '../types.ts';
import { expandRegions } from './expand.ts';
import { WIDEN_WINDOW, widenHits } from './widen.ts';
import { hydrateChunks } from './hit-content.ts';

const NS = 'ns_expand_layout';
const SIG = { provider: 'test', model: 'unit-4', dimension: 4 };
let dir: string;
let index: LanceNamespaceIndex;
/** Every stored chunk, read back without text (with its layout), per document ordered by chunk_index. */
const stored = new Map<string, StoredChunk[]>();

/** Chunkset sizes per document: small sections, one longer than the stored window, one huge. */
const DOCS: number[][] = [[3, 5, 1, 4], [2, 80, 3], [150], [1], [6, 6, 6, 6, 6]];

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'expand-layout-test-'));
  index = await openLanceIndex({ uri: dir });
  const rand = rng(7);
  const rows: ChunkRecord[] = [];
  DOCS.forEach((sets, d) => {
    let i = 0;
    sets.forEach((size, s) => {
      for (let k = 0; k < size; k++, i++) {
        rows.push({
          id: `doc${d}:${i}`, doc_id: `doc${d}`, source_job_id: 'job', chunk_index: i, chunkset_index: s, page_start: 1, page_end: 1,
          heading_path: `Section ${s}`, content: `text ${d} ${i}`, tokens: `text ${d} ${i}`, token_count: 20 + Math.floor(rand() * 300),
          vector: new Float32Array([1, rand(), rand(), rand()]),
        });
      }
    });
  });
  await index.addChunks(NS, withSearchLayout(rows), SIG);
  const all = await index.vectorSearch(NS, new Float32Array([1, 0, 0, 0]), rows.length, undefined, { text: false });
  assert.equal(all.length, rows.length);
  for (const { chunk } of all) stored.set(chunk.doc_id, [...(stored.get(chunk.doc_id) ?? []), chunk]);
  for (const list of stored.values()) list.sort((a, b) => a.chunk_index - b.chunk_index);
});

after(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

/** The index, counting its reads. */
function counting(reads: { n: number }): NamespaceIndex {
  return new Proxy(index, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop !== 'getChunkRanges') return typeof v === 'function' ? v.bind(target) : v;
      return (...args: Parameters<NamespaceIndex['getChunkRanges']>) => {
        reads.n++;
        return target.getChunkRanges(...args);
      };
    },
  });
}

/** A region over `members` (chunk indices of one chunkset of `doc`), with or without their stored layout. */
function region(doc: string, members: number[], withLayout: boolean): Region {
  const chunks = members.map((i) => {
    const c = { ...stored.get(doc)![i] };
    if (!withLayout) delete c.layout;
    return c;
  });
  return {
    docId: doc, chunksetIndex: chunks[0].chunkset_index, from: members[0], to: members[members.length - 1], score: 0.5, fusedRank: 1,
    anchor: null, coverage: null, signals: { ann: 0.5, bm25: null, rrf: 0.01, reranker: null }, chunks,
    members: chunks.map((chunk) => ({ chunk, ann: 0.5, bm25: null, annRank: 1, bm25Rank: null, rrf: 0.01, vector: null, anchor: null, tokens: null, termHashes: null, coverage: null })),
  };
}

/** Random non-overlapping hits (1–2 chunks, a gap of 1 bridged sometimes) of random chunksets. */
function randomHits(rand: () => number): Array<{ doc: string; members: number[] }> {
  const hits: Array<{ doc: string; members: number[] }> = [];
  const taken = new Set<string>();
  for (let n = 0; n < 12; n++) {
    const doc = `doc${Math.floor(rand() * DOCS.length)}`;
    const rows = stored.get(doc)!;
    const at = Math.floor(rand() * rows.length);
    const shape = rand();
    const second = shape < 0.5 ? at : shape < 0.75 ? at + 1 : at + 2;
    const members = [...new Set([at, second])].filter((i) => i < rows.length && rows[i].chunkset_index === rows[at].chunkset_index);
    if (members.some((i) => [i - 1, i, i + 1].some((k) => taken.has(`${doc}:${k}`)))) continue;
    for (const i of members) taken.add(`${doc}:${i}`);
    hits.push({ doc, members });
  }
  return hits;
}

async function expand(hits: Array<{ doc: string; members: number[] }>, withLayout: boolean, tightness: number, reads: { n: number }) {
  const regions = hits.map((h) => region(h.doc, h.members, withLayout));
  const claimed = new Map<string, Set<number>>();
  for (const r of regions) {
    const own = claimed.get(r.docId) ?? new Set<number>();
    for (let i = r.from; i <= r.to; i++) own.add(i);
    claimed.set(r.docId, own);
  }
  await expandRegions(counting(reads), NS, regions, claimed, tightness);
  return {
    regions: regions.map((r) => ({ doc: r.docId, from: r.from, to: r.to, chunks: r.chunks.map((c) => [c.chunk_index, c.chunkset_index, c.token_count]) })),
    claimed: [...claimed].map(([d, s]) => [d, [...s].sort((a, b) => a - b)]).sort(),
  };
}

test('rows store their chunkset extent, total tokens and the document\'s neighbours within the window', () => {
  const doc1 = stored.get('doc1')!;
  const c = doc1[40]; // chunkset 1 = chunks 2..81
  assert.ok(c.layout);
  assert.equal(c.layout.setFirst, 2);
  assert.equal(c.layout.setLast, 81);
  assert.equal(c.layout.setTokens, doc1.slice(2, 82).reduce((s, x) => s + x.token_count, 0));
  assert.equal(c.layout.nearFrom, 40 - LAYOUT_WINDOW);
  assert.equal(c.layout.docWide, true);
  assert.deepEqual(Array.from(c.layout.near), doc1.slice(40 - LAYOUT_WINDOW, 41 + LAYOUT_WINDOW).map((x) => x.token_count));
  // Across chunkset boundaries: chunk 0 (chunkset 0 = chunks 0..1) stores chunks 0..32.
  assert.deepEqual(Array.from(doc1[0].layout!.near), doc1.slice(0, LAYOUT_WINDOW + 1).map((x) => x.token_count));
  assert.ok(doc1.every((x) => x.bibliography === false && x.textOmitted && x.content === ''));
});

test('expansion from the stored layout equals expansion from the rows read, for random hits and tightnesses', async () => {
  const rand = rng(11);
  let planned = 0;
  for (let trial = 0; trial < 40; trial++) {
    const hits = randomHits(rand);
    const tightness = [0, 0.1, 0.3, 0.6, 1][trial % 5];
    const viaLayout = { n: 0 };
    const viaRead = { n: 0 };
    const a = await expand(hits, true, tightness, viaLayout);
    const b = await expand(hits, false, tightness, viaRead);
    assert.deepEqual(a, b, `trial ${trial}, tightness ${tightness}`);
    if (viaLayout.n === 0) planned++;
    assert.ok(viaLayout.n <= viaRead.n);
  }
  assert.ok(planned >= 10, `only ${planned} of 40 searches planned without a read`);
});

test('small chunksets expand without any read; a huge one at tightness 1 falls back to reading it', async () => {
  const small = { n: 0 };
  const got = await expand([{ doc: 'doc0', members: [4] }, { doc: 'doc4', members: [13, 14] }], true, 1, small);
  assert.equal(small.n, 0);
  assert.deepEqual(got.regions.map((r) => [r.from, r.to]), [[3, 7], [12, 17]]);
  assert.ok(got.regions[0].chunks.length === 5);
  const huge = { n: 0 };
  const whole = await expand([{ doc: 'doc2', members: [75] }], true, 1, huge);
  assert.ok(huge.n >= 1);
  assert.deepEqual(whole.regions.map((r) => [r.from, r.to]), [[0, 149]]);
});

test('widening planned from the stored document-wide layouts equals widening from the rows read, across chunksets and at document ends', async () => {
  const rand = rng(23);
  let planned = 0;
  let widened = 0;
  for (let trial = 0; trial < 60; trial++) {
    const picks = randomHits(rand);
    const tightness = [0.1, 0.3, 0.6, 1][trial % 4];
    const target = 1000 + Math.floor(rand() * 6000);
    const used = Math.floor(rand() * target * 0.5);
    const run = async (withLayout: boolean) => {
      const reads = { n: 0 };
      const hits = picks.map((p) => {
        const r = region(p.doc, p.members, withLayout);
        return { docId: p.doc, chunks: r.chunks.map((c) => ({ ...c })), members: r.chunks };
      });
      const { tokens } = await widenHits(counting(reads), NS, hits, used, target, tightness);
      return { reads: reads.n, tokens, hits: hits.map((h) => h.chunks.map((c) => [c.doc_id, c.chunk_index, c.token_count])) };
    };
    const viaLayout = await run(true);
    const viaRead = await run(false);
    assert.deepEqual(viaLayout.hits, viaRead.hits, `trial ${trial}`);
    assert.equal(viaLayout.tokens, viaRead.tokens);
    assert.equal(viaRead.reads, 1);
    if (viaLayout.reads === 0) planned++;
    if (viaLayout.tokens > used) widened++;
  }
  assert.ok(planned >= 30 && widened >= 30, `planned without a read ${planned}, widened ${widened} of 60`);
});

test('a widened chunk planned from the stored layout carries a guessed row address that reads back its text', async () => {
  const r = region('doc1', [40], true);
  const hit = { docId: 'doc1', chunks: r.chunks.map((c) => ({ ...c })), members: r.chunks };
  const reads = { n: 0 };
  await widenHits(counting(reads), NS, [hit], 0, 100_000, 1);
  assert.equal(reads.n, 0);
  assert.deepEqual([hit.chunks[0].chunk_index, hit.chunks[hit.chunks.length - 1].chunk_index], [40 - WIDEN_WINDOW, 40 + WIDEN_WINDOW]);
  assert.ok(hit.chunks.every((c) => typeof c.rowId === 'bigint'));
  await hydrateChunks(index, NS, [hit]);
  assert.deepEqual(hit.chunks.map((c) => c.content), Array.from({ length: 2 * WIDEN_WINDOW + 1 }, (_, k) => `text 1 ${40 - WIDEN_WINDOW + k}`));
});
