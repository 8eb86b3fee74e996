import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import type { IndexHit } from '../../storage/namespace-index.ts';
import { isBibliographyChunk, isBibliographyRegion } from './section-prior.ts';
import { withAnchorSimilarity } from './anchor.ts';
import { fuseRrf, queryStats } from './fuse.ts';
import { rankStandard } from './standard-rank.ts';

const chunk = (doc: string, i: number, heading: string, content: string): StoredChunk => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: i,
  page_start: 1, page_end: 1, heading_path: heading, content, token_count: 10,
});
const refs = '[1] LuaJIT roadmap 2008. [2] A. Gal. Efficient bytecode verification, 2006. [3] M. Chang. Tracing for web 3.0, 2009.';

test('bibliography chunks: by innermost heading (numbered, several languages) or by citation-entry content', () => {
  for (const h of ['References', 'Paper > 11. References', 'Bibliography', 'Literaturverzeichnis', 'Références', '参考文献', 'Works Cited:']) {
    assert.ok(isBibliographyChunk({ heading_path: h, content: 'x' }), h);
  }
  assert.ok(isBibliographyChunk({ heading_path: '', content: refs }));
  assert.ok(!isBibliographyChunk({ heading_path: 'Paper > 8. Related Work', content: 'YETI [19] applied tracing to Java in 2007 [3].' }));
  assert.ok(!isBibliographyChunk({ heading_path: 'References to memory', content: 'x' }), 'a heading that merely starts with the word');
  assert.ok(!isBibliographyChunk({ heading_path: '', content: '[1] is the only citation here, 2009.' }));
});

test('a reference list is neither the lexical anchor nor ranked above the passage it out-scores on BM25', () => {
  const v = (x: number[]) => Float32Array.from(x);
  const bib: IndexHit = { chunk: chunk('d', 9, 'Paper > References', refs), score: 10, vector: v([1, 0]) };
  const body: IndexHit = { chunk: chunk('d', 1, 'Paper > Abstract', 'Trace-based compilation for dynamic languages.'), score: 9, vector: v([0.6, 0.8]) };
  const fused = withAnchorSimilarity(fuseRrf([{ ...body, score: 0.7 }, { ...bib, score: 0.6 }], [bib, body]), [bib, body]);
  assert.equal(fused.find((f) => f.chunk.id === 'd:1')!.anchor, 1, 'the abstract is the anchor');
  const vector = [{ ...body, score: 0.7 }, { ...bib, score: 0.6 }];
  const ranked = rankStandard(vector, [bib, body], queryStats(vector, [bib, body], true, 4, 100)).regions;
  assert.deepEqual(ranked.map((r) => r.from), [1, 9]);
  assert.ok(isBibliographyRegion(ranked[1]) && !isBibliographyRegion(ranked[0]));
});
