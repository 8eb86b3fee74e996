import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FusedChunk } from '../types.ts';
import { DEGENERATE_POOL, withCoverage } from './coverage.ts';
import { hashMatcher, termMatcher } from './group-match.ts';
import { pairHashSet, termHashSet } from '../../analysis/term-hash.ts';
import { phraseSkipTerms } from '../../analysis/stopwords.ts';

const fc = (id: string, tokens: string | null): FusedChunk => ({
  chunk: { id, doc_id: id, source_job_id: 'j', chunk_index: 0, chunkset_index: 0, page_start: 1, page_end: 1, heading_path: '', content: '', token_count: 1 },
  ann: null, bm25: null, annRank: null, bm25Rank: null, rrf: 0, vector: null, anchor: null, tokens, termHashes: null, coverage: null,
});

test('coverage weighs query words by their pool IDF and ignores words no candidate holds', () => {
  const pool = [fc('a', 'billing cutover saturday'), fc('b', 'billing system migration'), fc('c', 'lunch menu'), fc('d', null)];
  const { fused, matchable } = withCoverage(pool, [['billing'], ['cutover'], ['analyst']]);
  assert.equal(matchable, 2, '"analyst" occurs nowhere, so it cannot lower any score');
  const [a, b, c, d] = fused.map((f) => f.coverage);
  assert.equal(a, 1);
  assert.ok(b !== null && b > 0 && b < 0.5, 'the common word weighs less than the rare one');
  assert.equal(c, 0);
  assert.equal(d, null);
});

test('a group matches through any of its alternatives', () => {
  const { fused } = withCoverage([fc('a', 'ducks'), fc('b', 'duck')], [['duck', 'ducks']]);
  assert.deepEqual(fused.map((f) => f.coverage), [1, 1]);
});

test('a second passage covering the same words gets the same coverage as the first', () => {
  const { fused } = withCoverage([fc('a', 'cutover saturday february'), fc('b', 'cutover saturday'), fc('c', 'other')], [['cutover'], ['saturday']]);
  assert.equal(fused[0].coverage, fused[1].coverage);
});

test('a segment whose words no candidate holds together weighs less than the one a candidate answers', () => {
  const pool = [fc('a', 'insulin resistance obesity'), fc('b', 'analyst report'), fc('c', 'briefing notes'), fc('d', 'insulin dose')];
  const groups = [['analyst'], ['briefing'], ['insulin'], ['resistance'], ['obesity']];
  const flat = withCoverage(pool, groups).fused.map((f) => f.coverage!);
  const seg = withCoverage(pool, groups, [], [[0, 1], [2, 3, 4]]).fused.map((f) => f.coverage!);
  assert.ok(seg[0] > flat[0], `the answering passage gains (${flat[0]} -> ${seg[0]})`);
  assert.ok(seg[1] < flat[1], 'a passage matching only instruction words loses');
});

test('an instruction word that sits beside a few need words is weighed down by word matchability; a one-segment query is not', () => {
  // "knowledge" co-occurs with one need word ("insulin") in c, so segment matchability alone keeps part of its weight.
  const pool = [fc('a', 'insulin resistance obesity'), fc('b', 'knowledge base'), fc('c', 'knowledge insulin')];
  const groups = [['knowledge'], ['base'], ['insulin'], ['resistance'], ['obesity']];
  const seg = withCoverage(pool, groups, [], [[0, 1], [2, 3, 4]]);
  const one = withCoverage(pool, groups, [], [[0, 1, 2, 3, 4]]);
  const flat = withCoverage(pool, groups);
  assert.deepEqual(one.fused.map((f) => f.coverage), flat.fused.map((f) => f.coverage), 'one segment: weighted as without segments');
  assert.ok(seg.fused[0].coverage! > 0.9, `the answering passage holds nearly all the need (${seg.fused[0].coverage})`);
  assert.ok(seg.matchable < 3.3, `the matchable length is about the need's 3 words (${seg.matchable})`);
  assert.equal(flat.matchable, 5);
});

test('sentence drop: an instruction sentence that matches far below the need weighs nothing; a question or a close second sentence stays', () => {
  const pool = [fc('a', 'insulin resistance obesity'), fc('b', 'short cite'), fc('c', 'lunch')];
  const groups = [['insulin'], ['resistance'], ['obesity'], ['short'], ['cite']];
  const need = { groups: [0, 1, 2], question: false };
  const instruction = { groups: [3, 4], question: false };
  const kept = withCoverage(pool, groups, [], [[0, 1, 2], [3, 4]]);
  const dropped = withCoverage(pool, groups, [], [[0, 1, 2], [3, 4]], [need, instruction]);
  assert.ok(kept.fused[0].coverage! < 1, `without the drop the instruction keeps some weight (${kept.fused[0].coverage})`);
  assert.equal(dropped.fused[0].coverage, 1, 'the answering passage holds all that is left of the query');
  assert.equal(dropped.fused[1].coverage, 0, 'a passage holding only instruction words holds nothing');
  assert.equal(dropped.matchable, 3);
  const asked = withCoverage(pool, groups, [], [[0, 1, 2], [3, 4]], [need, { ...instruction, question: true }]);
  assert.deepEqual(asked.fused.map((f) => f.coverage), kept.fused.map((f) => f.coverage), 'a question sentence is never dropped');
  // Two sentences of one need, each answered by its own passage about as well: both stay.
  const twin = withCoverage([fc('a', 'insulin resistance'), fc('b', 'obesity diet'), fc('c', 'lunch')], [['insulin'], ['resistance'], ['obesity'], ['diet']], [], [[0, 1], [2, 3]], [{ groups: [0, 1], question: false }, { groups: [2, 3], question: false }]);
  assert.equal(twin.matchable, 4);
  assert.equal(withCoverage(pool, groups, [], [], [need]).matchable, 5, 'one sentence: nothing is dropped');
});

test('title coverage: the share of the same weighted query a chunk\'s document title holds; null without a title', () => {
  const chunk = (id: string, doc: string, tokens: string): FusedChunk => ({ ...fc(id, tokens), chunk: { ...fc(id, tokens).chunk, doc_id: doc } });
  const pool = [chunk('a1', 'A', 'insulin resistance obesity'), chunk('b1', 'B', 'insulin resistance obesity'), chunk('c1', 'C', 'lunch')];
  const groups = [['insulin'], ['resistance'], ['obesity']];
  const { fused } = withCoverage(pool, groups, [], [], [], new Map([['A', 'insulin resistance in mice'], ['B', 'a review']]));
  const [a1, b1, c1] = fused;
  assert.equal(a1.coverage, b1.coverage, 'the same text: the same coverage');
  assert.ok(a1.titleCoverage! > 0.5 && a1.titleCoverage! < 1, `A's title names two of the three words (${a1.titleCoverage})`);
  assert.equal(b1.titleCoverage, 0);
  assert.equal(c1.titleCoverage, null, 'no title given for C');
  assert.equal(withCoverage(pool, groups).fused[0].titleCoverage, null);
});

test('document coverage: the union of a document\'s candidates, and each chunk\'s share of it', () => {
  const chunk = (id: string, doc: string, tokens: string): FusedChunk => ({ ...fc(id, tokens), chunk: { ...fc(id, tokens).chunk, doc_id: doc } });
  const pool = [chunk('a1', 'A', 'company 2023'), chunk('a2', 'A', 'cash equivalents'), chunk('b1', 'B', 'cash'), chunk('c1', 'C', 'lunch')];
  const { fused } = withCoverage(pool, [['company'], ['2023'], ['cash'], ['equivalents']]);
  const [a1, a2, b1] = fused;
  assert.equal(a1.docCoverage, 1, 'document A holds every query word across its two chunks');
  assert.equal(a2.docCoverage, 1);
  assert.ok(Math.abs(a1.coverageInDoc! + a2.coverageInDoc! - 1) < 1e-9, 'A\'s chunks split what A holds');
  assert.equal(b1.docCoverage, b1.coverage, 'a one-chunk document: doc coverage = coverage');
  assert.equal(b1.coverageInDoc, 1);
  assert.equal(fused[3].docCoverage, 0);
});

test('a word that tells documents apart keeps its weight when the pool is full of one document', () => {
  // Doc "acme" (5 chunks, all holding "acme" from its title) and doc "other" (1 chunk holding "capex").
  const chunk = (id: string, doc: string, tokens: string): FusedChunk => ({ ...fc(id, tokens), chunk: { ...fc(id, tokens).chunk, doc_id: doc } });
  const pool = [
    chunk('a1', 'acme', 'acme capex'), chunk('a2', 'acme', 'acme'), chunk('a3', 'acme', 'acme'), chunk('a4', 'acme', 'acme'), chunk('a5', 'acme', 'acme'),
    chunk('o1', 'other', 'capex'), chunk('o2', 'other2', 'capex'),
  ];
  const { fused } = withCoverage(pool, [['acme'], ['capex']]);
  const cov = (id: string) => fused.find((f) => f.chunk.id === id)!.coverage!;
  // Chunk-level pool IDF alone: acme (df 5 of 7) ≈ 0.41, capex (df 3 of 7) ≈ 0.85, so "acme" alone would
  // cover 0.33. With the document level (acme in 1 of 3 documents) it weighs about as much as "capex".
  assert.ok(cov('a2') > 0.4, `a chunk of the named document keeps the name's weight (${cov('a2')})`);
  assert.ok(cov('o1') < 0.6, `a chunk of another document holding only the other word (${cov('o1')})`);
  assert.equal(cov('a1'), 1);
});

test('with one candidate per document the two-level IDF leaves coverage as it was', () => {
  const pool = [fc('a', 'billing cutover saturday'), fc('b', 'billing system migration'), fc('c', 'lunch menu')];
  const { fused } = withCoverage(pool, [['billing'], ['cutover']]);
  const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
  assert.ok(Math.abs(fused[1].coverage! - idf(2) / (idf(2) + idf(1))) < 1e-12);
});

test('termMatcher marks exactly the groups a split of the term string would find', () => {
  // Random term strings over a small alphabet (prefixes, repeats, non-Latin, empty terms from double
  // spaces) against random groups: the scan must agree with splitting the string and a Set lookup.
  let seed = 42;
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
  const vocab = ['a', 'ab', 'abc', 'b', 'fy', 'fy2018', '2018', 'über', 'стат', '数据', '데이', 'x'.repeat(40), 'ab c'.replace(' ', '')];
  for (let round = 0; round < 500; round++) {
    const tokens = Array.from({ length: rnd(12) }, () => (rnd(10) === 0 ? '' : vocab[rnd(vocab.length)])).join(' ');
    const groups = Array.from({ length: 1 + rnd(4) }, () => Array.from({ length: 1 + rnd(2) }, () => vocab[rnd(vocab.length)] + (rnd(6) === 0 ? 'z' : '')));
    const h = groups.map(() => false);
    termMatcher(groups)(tokens, h);
    const present = new Set(tokens.split(' '));
    assert.deepEqual(h, groups.map((g) => g.some((t) => present.has(t))), `${JSON.stringify(tokens)} ${JSON.stringify(groups)}`);
    // The stored-hash path gives the same booleans (no collision within this vocabulary).
    const byHash = groups.map(() => false);
    hashMatcher(groups)(termHashSet(tokens), byHash);
    assert.deepEqual(byHash, h, `hashes: ${JSON.stringify(tokens)} ${JSON.stringify(groups)}`);
  }
});

test('coverage is the same from stored term hashes as from the term string, and mixes both kinds of row', () => {
  const strings = [fc('a', 'billing cutover saturday'), fc('b', 'billing system migration'), fc('c', 'lunch menu'), fc('d', null)];
  const hashed = strings.map((f, i) => (f.tokens !== null && i % 2 === 0 ? { ...f, tokens: null, termHashes: termHashSet(f.tokens) } : f));
  const groups = [['billing'], ['cutover'], ['saturday', 'sat'], ['absent']];
  const a = withCoverage(strings, groups);
  const b = withCoverage(hashed, groups);
  assert.equal(b.matchable, a.matchable);
  assert.deepEqual(b.fused.map((f) => [f.coverage, f.docCoverage, f.coverageInDoc]), a.fused.map((f) => [f.coverage, f.docCoverage, f.coverageInDoc]));
  assert.equal(b.fused[3].coverage, null);
});

test('phrase-pair coverage: the words adjacent count, the same words apart do not; unknown without stored pairs', () => {
  const skip = phraseSkipTerms('en');
  const withPairs = (f: FusedChunk): FusedChunk => ({ ...f, pairHashes: pairHashSet(f.tokens!, skip) });
  const pool = [withPairs(fc('a', 'the cash flow statement')), withPairs(fc('b', 'cash from the statement of flow')), fc('c', 'cash flow statement'), withPairs(fc('d', 'lunch menu'))];
  const groups = [['cash'], ['flow'], ['statement']];
  const { fused } = withCoverage(pool, groups, [], [], [], undefined, [[0, 1], [1, 2]]);
  assert.deepEqual(fused.map((f) => f.coverage), [1, 1, 1, 0], 'every chunk but d holds every word');
  assert.deepEqual(fused.map((f) => f.pairCoverage), [1, 0, null, 0], 'only a holds the phrase; c stores no pairs (unknown)');
  // A pair weighs as its words do: "statement" alone in a sentence that is not a question is dropped
  // (SENTENCE_DROP), which takes the pair (flow, statement) out with it.
  const e = withPairs(fc('e', 'flow statement then cash'));
  assert.equal(withCoverage([...pool, e], groups, [], [], [], undefined, [[0, 1], [1, 2]]).fused[4].pairCoverage, 0.5);
  const dropped = withCoverage([...pool, e], groups, [], [], [{ groups: [0, 1], question: true }, { groups: [2], question: false }], undefined, [[0, 1], [1, 2]]);
  assert.equal(dropped.fused[4].pairCoverage, 0);
  assert.equal(dropped.fused[0].pairCoverage, 1);
  // A pair that no candidate holds adjacent ((statement, cash)) counts in pair_cov, not in the pool share.
  const three = withCoverage(pool, groups, [], [], [], undefined, [[0, 1], [1, 2], [2, 0]]);
  assert.deepEqual([three.fused[0].pairCoverage, three.fused[0].pairCoverageInPool], [2 / 3, 1]);
  assert.equal(three.fused[2].pairCoverageInPool, null);
  // Without pairs every chunk's pair coverage is its coverage, stored pairs or not.
  const lone = withCoverage(pool, [['cash']], [], [], [], undefined, []);
  assert.deepEqual(lone.fused.map((f) => f.pairCoverage), lone.fused.map((f) => f.coverage));
});

test('instruction sentences: dropped, and not the bar, when a sentence that is not one matches well enough', () => {
  // A short claim whose words every candidate holds (low pool IDF) wrapped in an instruction whose rarer words
  // one candidate holds together: by matchability alone the instruction is the best sentence and the claim,
  // below 0.75 of it, would be dropped.
  const pool = [fc('a', 'mitochondria apoptosis'), fc('b', 'mitochondria apoptosis'), fc('c', 'mitochondria'), fc('d', 'apoptosis'), fc('e', 'information available precisely')];
  const groups = [['mitochondria'], ['apoptosis'], ['information'], ['available'], ['precisely']];
  const claim = { groups: [0, 1], question: false };
  const instruction = { groups: [2, 3, 4], question: false };
  const plain = withCoverage(pool, groups, [], [[2, 3, 4], [0, 1]], [instruction, claim]);
  assert.equal(plain.fused[0].coverage, 0, 'without the flag the claim is dropped in favour of the instruction');
  const marked = withCoverage(pool, groups, [], [[2, 3, 4], [0, 1]], [{ ...instruction, instruction: true }, claim]);
  assert.equal(marked.fused[0].coverage, 1, 'the claim is all that is left of the query');
  assert.equal(marked.fused[4].coverage, 0);
  assert.equal(marked.matchable, 2);
  // Guard: when what is not an instruction barely matches (the need shares the instruction's sentence), nothing
  // is dropped as an instruction.
  const bare = withCoverage(pool, groups, [], [[0, 1, 2, 3, 4]], [{ groups: [0, 1, 2, 3, 4], question: false, instruction: true }, { groups: [], question: false }]);
  assert.equal(bare.matchable, 5);
  const onlyInstructions = withCoverage(pool, groups, [], [[2, 3, 4], [0, 1]], [{ ...instruction, instruction: true }, { ...claim, instruction: true }]);
  assert.deepEqual(onlyInstructions.fused.map((f) => f.coverage), plain.fused.map((f) => f.coverage), 'a query made only of instructions is weighed as before');
});

test('named documents: a query word that only some documents\' labels hold and no other document holds names them', () => {
  const chunk = (id: string, doc: string, tokens: string): FusedChunk => ({ ...fc(id, tokens), chunk: { ...fc(id, tokens).chunk, doc_id: doc } });
  // Labels are indexed with every chunk (chunk-rows.ts), so a label word is in each of its document's chunks.
  const pool = [chunk('m1', 'MGM', 'mgm interest expense'), chunk('m2', 'MGM', 'mgm revenue'), chunk('a1', 'AMCOR', 'amcor adjusted ebit numerator'), chunk('t1', '3M', '3m numerator denominator')];
  const titles = new Map([['MGM', 'mgm 2022 earnings'], ['AMCOR', 'amcor 2023 10k'], ['3M', '3m 2018 10k']]);
  const groups = [['mgm'], ['interest'], ['numerator'], ['ebit']];
  assert.deepEqual([...withCoverage(pool, groups, [], [], [], titles).named!], ['MGM']);
  // A word another document's text holds names nothing ("amcor" written in 3M's filing).
  const mentioned = [...pool.slice(0, 3), chunk('t1', '3M', '3m amcor numerator')];
  assert.equal(withCoverage(mentioned, [['amcor'], ['numerator']], [], [], [], titles).named, null);
  // A word every label holds names nothing; no titles, one document: nothing.
  assert.equal(withCoverage(pool, [['10k'], ['numerator']], [], [], [], new Map([['MGM', 'mgm 10k'], ['AMCOR', 'amcor 10k'], ['3M', '3m 10k']])).named, null);
  assert.equal(withCoverage(pool, groups).named, null);
  assert.equal(withCoverage(pool.slice(0, 2), groups, [], [], [], titles).named, null);
  // Two naming words: the documents both name; none in common: nothing.
  const two = new Map([...titles, ['AMCOR', 'amcor mgm']]);
  const both = [chunk('m1', 'MGM', 'mgm 2022'), chunk('a1', 'AMCOR', 'amcor mgm'), chunk('t1', '3M', '3m numerator')];
  assert.deepEqual([...withCoverage(both, [['mgm'], ['amcor']], [], [], [], two).named!], ['AMCOR']);
  assert.equal(withCoverage(both, [['3m'], ['amcor']], [], [], [], two).named, null);
  // A word that weighs 0 (in a dropped instruction sentence) names nothing.
  assert.equal(withCoverage(pool, groups, [0, 1, 1, 1], [], [], titles).named, null);
});

test('a pool whose every matched word all candidates hold tells them apart by nothing: coverage 0', () => {
  // A short filing routed to for "What industry does AMCOR primarily operate in?": its label puts "amcor"
  // in every chunk, and no chunk holds another word of the question.
  const ofDoc = (doc: string, i: number, tokens: string): FusedChunk => { const f = fc(`${doc}:${i}`, tokens); return { ...f, chunk: { ...f.chunk, doc_id: doc, chunk_index: i } }; };
  const filing = (n: number) => Array.from({ length: n }, (_, i) => ofDoc('8k', i, `amcor exhibit indenture ${i}`));
  const groups = [['industri'], ['amcor'], ['primarili'], ['oper']];
  assert.deepEqual(withCoverage(filing(DEGENERATE_POOL), groups).fused.map((f) => f.coverage), new Array(DEGENERATE_POOL).fill(0));
  // Fewer candidates may each answer the query (a one-chunk document in searchInDoc): as before.
  assert.deepEqual(withCoverage(filing(DEGENERATE_POOL - 1), groups).fused.map((f) => f.coverage), new Array(DEGENERATE_POOL - 1).fill(1));
  // One chunk holding another word of the question tells the pool apart.
  const told = [...filing(DEGENERATE_POOL), ofDoc('8k', 99, 'amcor packag industri')];
  const cov = withCoverage(told, groups).fused.map((f) => f.coverage!);
  assert.ok(cov[DEGENERATE_POOL] > 0.9 && cov[0] > 0 && cov[0] < 0.2, JSON.stringify(cov));
  // Several documents (paragraphs of one article, each labelled with its title): as before.
  const paragraphs = Array.from({ length: DEGENERATE_POOL }, (_, i) => fc(`p${i}`, `amcor paragraph ${i}`));
  assert.deepEqual(withCoverage(paragraphs, groups).fused.map((f) => f.coverage), new Array(DEGENERATE_POOL).fill(1));
});
