import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IndexHit, StoredChunk } from '../../storage/namespace-index.ts';
import { queryStats } from './fuse.ts';
import { MIN_SCOPE_CANDIDATES, rankStandard } from './standard-rank.ts';

const chunk = (doc: string, i: number, content: string): StoredChunk => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0,
  page_start: i + 1, page_end: i + 1, heading_path: '', content, token_count: 10,
});
/** A BM25 hit whose stored terms are its label word plus its text (labels are indexed with every chunk). */
const hit = (doc: string, i: number, terms: string, score: number): IndexHit => ({ chunk: chunk(doc, i, terms), score, tokens: terms });

test('a document the query names is scored among its own candidates; other documents keep their scores', () => {
  // "mgm interest coverage numerator ebit": the 10-Ks hold the common words, MGM's release the name.
  const bm25 = [
    hit('AMCOR', 0, 'amcor adjusted ebit numerator coverage', 9),
    hit('3M', 0, '3m numerator denominator coverage', 8),
    hit('MGM', 0, 'mgm interest expense coverage', 7),
    // The release's other candidates: a scope needs MIN_SCOPE_CANDIDATES passages to rank among.
    ...[5, 6, 7, 8].map((i) => hit('MGM', i, `mgm casino revenue ${i}`, 3)),
    hit('AMCOR', 7, 'amcor interest', 2),
  ];
  const groups = [['mgm'], ['interest'], ['coverage'], ['numerator'], ['ebit']];
  const titles = new Map([['MGM', 'mgm 2022 release'], ['AMCOR', 'amcor 2023 10k'], ['3M', '3m 2018 10k']]);
  const stats = queryStats(null, bm25, true, groups.length, 1000);
  const plain = rankStandard(null, bm25, stats, { groups }).regions;
  const named = rankStandard(null, bm25, stats, { groups, titles }).regions;
  const score = (rs: typeof plain, id: string) => rs.find((r) => `${r.docId}:${r.from}` === id)!.score;
  assert.ok(score(named, 'MGM:0') > score(plain, 'MGM:0'), `MGM's evidence gains (${score(plain, 'MGM:0')} -> ${score(named, 'MGM:0')})`);
  assert.equal(named[0].docId, 'MGM');
  assert.ok(named.find((r) => r.docId === 'MGM')!.stats, 'a scoped region carries the statistics it was scored with');
  for (const id of ['AMCOR:0', '3M:0', 'AMCOR:7']) assert.equal(score(named, id), score(plain, id), `${id} keeps its score`);
  assert.equal(named.length, plain.length, 'every region is returned once');
  for (let i = 1; i < named.length; i++) assert.ok(named[i - 1].score >= named[i].score, 'best first');
});

test('two documents a query names are each scored among their own candidates, as searchInDoc scores them', () => {
  // "amcor real change sales fx": AMCOR's 10-K and release both hold the name; the 10-K holds more words.
  const bm25 = [
    ...[0, 1, 2, 3, 4].map((i) => hit('AMCOR-10K', i, `amcor real sales fx change ${i}`, 9 - i)),
    ...[0, 1, 2, 3, 4].map((i) => hit('AMCOR-REL', i, i === 0 ? 'amcor sales change' : `amcor outlook ${i}`, 6 - i)),
    hit('3M', 0, '3m sales change', 5),
  ];
  const groups = [['amcor'], ['real'], ['sales'], ['fx'], ['change']];
  const titles = new Map([['AMCOR-10K', 'amcor 2023 10k'], ['AMCOR-REL', 'amcor 2023 release'], ['3M', '3m 2018 10k']]);
  const stats = queryStats(null, bm25, true, groups.length, 1000);
  const named = rankStandard(null, bm25, stats, { groups, titles }).regions;
  const rel = bm25.filter((h) => h.chunk.doc_id === 'AMCOR-REL');
  const inDoc = rankStandard(null, rel, { ...stats, maxBm25: 6 }, { groups, titles, scoped: true }).regions;
  const score = (rs: typeof named, id: string) => rs.find((r) => `${r.docId}:${r.from}` === id)!.score;
  assert.equal(score(named, 'AMCOR-REL:0'), score(inDoc, 'AMCOR-REL:0'), 'the release\'s evidence scores as a search in the release');
  assert.ok(named.filter((r) => r.docId.startsWith('AMCOR')).every((r) => r.stats), 'both named documents are rescored');
  assert.ok(named.find((r) => r.docId === 'AMCOR-REL')!.stats!.matchable < named.find((r) => r.docId === 'AMCOR-10K')!.stats!.matchable, 'each with its own statistics');
});

test('no named document (a word every label holds, or one document): no region is rescored', () => {
  const bm25 = [hit('A', 0, 'alpha insulin', 5), hit('B', 0, 'beta insulin', 4)];
  const groups = [['insulin']];
  const stats = queryStats(null, bm25, true, 1, 100);
  const titled = rankStandard(null, bm25, stats, { groups, titles: new Map([['A', 'insulin a'], ['B', 'insulin b']]) }).regions;
  assert.ok(titled.every((r) => r.stats === undefined));
  const one = rankStandard(null, bm25.slice(0, 1), stats, { groups: [['alpha']], titles: new Map([['A', 'alpha']]) }).regions;
  assert.ok(one.every((r) => r.stats === undefined));
});

test('named documents with fewer than MIN_SCOPE_CANDIDATES candidates are not scored again (a degenerate scope)', () => {
  const bm25 = [hit('AMCOR', 0, 'amcor ebit numerator', 9), hit('3M', 0, '3m numerator', 8), ...Array.from({ length: MIN_SCOPE_CANDIDATES - 1 }, (_, i) => hit('MGM', i, `mgm interest ${i}`, 5 - i))];
  const groups = [['mgm'], ['interest'], ['numerator'], ['ebit']];
  const titles = new Map([['MGM', 'mgm release'], ['AMCOR', 'amcor 10k'], ['3M', '3m 10k']]);
  const regions = rankStandard(null, bm25, queryStats(null, bm25, true, groups.length, 1000), { groups, titles }).regions;
  assert.ok(regions.every((r) => r.stats === undefined));
});
