// Unit tests of the evaluation judge (judge.ts), the one the API and bench/answers.ts share: what counts
// as evidence for each kind of expectation, found in context, the order of the miss causes, the hit-level
// measures and the reliability bins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Calibration, foundInContext, judgeOf, missCause, percentile, rankMeasures, type JudgedHit } from './judge.ts';

const hit = (doc_id: string, score: number, extra: Partial<JudgedHit> = {}): JudgedHit => ({ doc_id, pages: [1], chunk_indices: [0], content: '', score, ...extra });

test('evidence: doc_id, narrowed by pages, chunk indices and answers', () => {
  assert.ok(judgeOf({ docId: 'a' }).relevant(hit('a', 0.5)));
  assert.ok(!judgeOf({ docId: 'a' }).relevant(hit('b', 0.5)));
  assert.ok(judgeOf({ docId: 'a', pages: [3, 4] }).relevant(hit('a', 0.5, { pages: [4, 5] })));
  assert.ok(!judgeOf({ docId: 'a', pages: [3] }).relevant(hit('a', 0.5, { pages: [1, 2] })));
  assert.ok(judgeOf({ docId: 'a', chunkIndices: [7] }).relevant(hit('a', 0.5, { chunk_indices: [6, 7] })));
  assert.ok(!judgeOf({ docId: 'a', chunkIndices: [7] }).relevant(hit('a', 0.5)));
  const answer = judgeOf({ answers: ['6 February  2027'] });
  assert.ok(answer.relevant(hit('x', 0.5, { content: 'Cutover on 6 february 2027.' })), 'case and spacing are ignored');
  assert.ok(!judgeOf({ docId: 'a', answers: ['2027'] }).relevant(hit('b', 0.5, { content: '2027' })));
});

test('evidence: doc_ids, any of several documents (as BEIR qrels list them)', () => {
  const j = judgeOf({ docIds: ['a', 'c'] });
  assert.ok(j.relevant(hit('a', 0.5)) && j.relevant(hit('c', 0.5)));
  assert.ok(!j.relevant(hit('b', 0.5)));
  assert.equal(missCause(j, [hit('b', 0.9)], [hit('c', 0.4)], 0.3), 'wrong_document', 'no admitted hit of any of them');
  assert.equal(missCause(j, [hit('c', 0.9)], [hit('b', 0.9), hit('c', 0.2)], 0.3), 'below_threshold', 'an admitted hit of one of them is the right document');
  assert.ok(!judgeOf({ docIds: ['a'], answers: ['x'] }).relevant(hit('a', 0.5, { content: 'y' })), 'answers narrow doc_ids');
});

test('found in context: the answer text in the context, else an admitted evidence hit', () => {
  assert.equal(foundInContext(judgeOf({ answers: ['ＡＢＣ'] }), 'xx abc yy', []), true, 'NFKC folds full-width letters');
  assert.equal(foundInContext(judgeOf({ answers: ['abc'] }), 'nothing', [hit('a', 0.9, { content: 'abc' })]), false, 'answers are judged on the context');
  assert.equal(foundInContext(judgeOf({ docId: 'a' }), '', [hit('b', 0.9), hit('a', 0.4)]), true);
});

test('miss causes in order: empty, wrong document, not ranked, below threshold, cut by budget', () => {
  const j = judgeOf({ docId: 'a', pages: [2] });
  assert.equal(missCause(j, [], [], 0.3), 'empty');
  assert.equal(missCause(j, [hit('b', 0.9)], [hit('a', 0.9, { pages: [2] })], 0.3), 'wrong_document');
  assert.equal(missCause(j, [hit('a', 0.9)], [hit('a', 0.9)], 0.3), 'not_ranked');
  assert.equal(missCause(j, [hit('a', 0.9)], [hit('a', 0.9), hit('a', 0.2, { pages: [2] })], 0.3), 'below_threshold');
  assert.equal(missCause(j, [hit('a', 0.9)], [hit('a', 0.9), hit('a', 0.5, { pages: [2] })], 0.3), 'cut_by_budget');
  assert.equal(missCause(judgeOf({ answers: ['x'] }), [hit('b', 0.9)], [], 0.3), 'not_ranked', 'no document named: no wrong_document');
});

test('rank measures: first evidence rank and score, nDCG@10 against the ideal, recall@10, reciprocal rank', () => {
  const j = judgeOf({ docId: 'a' });
  const m = rankMeasures(j, [hit('b', 0.9), hit('a', 0.8), hit('c', 0.7), hit('a', 0.6)]);
  assert.equal(m.rank, 2);
  assert.equal(m.score, 0.8);
  assert.equal(m.recall10, 1);
  assert.equal(m.rr, 0.5);
  const ideal = 1 + 1 / Math.log2(3);
  assert.ok(Math.abs(m.ndcg10 - (1 / Math.log2(3) + 1 / Math.log2(5)) / ideal) < 1e-12);
  const none = rankMeasures(j, [hit('b', 0.9)]);
  assert.deepEqual(none, { rank: null, score: null, ndcg10: 0, recall10: 0, rr: 0 });
  const late = rankMeasures(j, [...Array.from({ length: 10 }, () => hit('b', 0.9)), hit('a', 0.1)]);
  assert.equal(late.recall10, 0);
  assert.equal(late.rr, 1 / 11);
});

test('reliability bins and the nearest-rank percentile', () => {
  const c = new Calibration();
  for (const [s, r] of [[0.05, false], [0.15, false], [0.95, true], [0.91, false], [1, true]] as const) c.add(s, r);
  assert.deepEqual(c.curve(), [
    { from: 0, to: 0.1, n: 1, mean_score: 0.05, observed: 0 },
    { from: 0.1, to: 0.2, n: 1, mean_score: 0.15, observed: 0 },
    { from: 0.9, to: 1, n: 3, mean_score: 0.953, observed: 0.667 },
  ]);
  assert.deepEqual(c.rows().map((r) => r.bin), ['0.0-0.1', '0.1-0.2', '0.9-1.0']);
  assert.equal(percentile([5, 1, 3, 2, 4], 50), 3);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95), 19);
  assert.equal(percentile([], 95), 0);
});
