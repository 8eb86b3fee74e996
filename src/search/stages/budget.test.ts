import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissiblePrefix, admitWithinBudget, clampBudget, CLUSTER_MARGIN, CLUSTER_MIN_SCORE, type BudgetItem } from './budget.ts';

const item = (docId: string, score: number, tokens: number, coreTokens = tokens, docOverhead = 0): BudgetItem => ({ docId, score, tokens, coreTokens, docOverhead });

test('clampBudget: defaults, and target above max is lowered to max', () => {
  assert.deepEqual(clampBudget(undefined, undefined), { target: 5000, max: 15000 });
  assert.deepEqual(clampBudget(8000, 2000), { target: 2000, max: 2000 });
  assert.deepEqual(clampBudget(20000, undefined), { target: 15000, max: 15000 });
  assert.deepEqual(clampBudget(300, 400), { target: 300, max: 400 });
});

test('hits are admitted best-first up to the target; the rest count as dropped', () => {
  const r = admitWithinBudget([item('a', 0.9, 400), item('b', 0.7, 400), item('c', 0.4, 400)], { target: 1000, max: 1000 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1]);
  assert.equal(r.dropped, 1);
  assert.equal(r.tokens, 800);
  assert.equal(r.grewForCluster, false);
});

test('a hit whose expansion does not fit enters in its core form', () => {
  const r = admitWithinBudget([item('a', 0.9, 500), item('b', 0.8, 900, 300)], { target: 1000, max: 1000 });
  assert.deepEqual(r.admitted, [{ index: 0, variant: 'expanded' }, { index: 1, variant: 'core' }]);
  assert.equal(r.tokens, 800);
});

test('every hit\'s retrieved chunks come before any hit\'s neighbours; expansions then go best first while they fit', () => {
  // Expanded as admitted, a's neighbours (600) would leave room for b's core only: c would be dropped.
  const r = admitWithinBudget([item('a', 0.9, 800, 200), item('b', 0.8, 800, 200), item('c', 0.7, 300, 200), item('d', 0.6, 500, 200)], { target: 1000, max: 1000 });
  assert.deepEqual(r.admitted, [{ index: 0, variant: 'core' }, { index: 1, variant: 'core' }, { index: 2, variant: 'expanded' }, { index: 3, variant: 'core' }]);
  assert.equal(r.tokens, 900);
  // With room for all, every hit is expanded.
  const roomy = admitWithinBudget([item('a', 0.9, 800, 200), item('b', 0.8, 800, 200)], { target: 2000, max: 2000 });
  assert.deepEqual(roomy.admitted.map((a) => a.variant), ['expanded', 'expanded']);
  assert.equal(roomy.tokens, 1600);
});

test('document header overhead is paid once per document', () => {
  const r = admitWithinBudget([item('a', 0.9, 100, 100, 50), item('a', 0.8, 100, 100, 50), item('b', 0.7, 100, 100, 50)], { target: 300, max: 300 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1]);
  assert.equal(r.tokens, 250);
});

test('the cut is final at the first hit that fits in neither form (no skipping ahead)', () => {
  const r = admitWithinBudget([item('a', 0.9, 600), item('b', 0.5, 600), item('c', 0.2, 10)], { target: 1000, max: 1000 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0]);
  assert.equal(r.dropped, 2);
});

test('a tight multi-document cluster at the cut grows toward max_tokens', () => {
  const items = [item('a', 0.9, 400), item('b', 0.62, 400), item('c', 0.60, 400), item('d', 0.58, 400), item('e', 0.3, 400)];
  const r = admitWithinBudget(items, { target: 1000, max: 5000 });
  // b is admitted within target; c and d are within CLUSTER_MARGIN of b and from other documents.
  assert.ok(0.62 - 0.58 <= CLUSTER_MARGIN);
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1, 2, 3]);
  assert.equal(r.grewForCluster, true);
  assert.equal(r.dropped, 1);
  assert.equal(r.tokens, 1600);
});

test('cluster growth stops at max_tokens', () => {
  const items = [item('a', 0.9, 400), item('b', 0.62, 400), item('c', 0.60, 400), item('d', 0.59, 400)];
  const r = admitWithinBudget(items, { target: 1000, max: 1300 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1, 2]);
  assert.equal(r.dropped, 1);
});

test('no growth when the hits at the cut are far apart or all from one document', () => {
  const apart = admitWithinBudget([item('a', 0.9, 600), item('b', 0.5, 600)], { target: 1000, max: 5000 });
  assert.deepEqual(apart.admitted.map((a) => a.index), [0]);
  assert.equal(apart.grewForCluster, false);
  const oneDoc = admitWithinBudget([item('a', 0.9, 100), item('x', 0.61, 600), item('x', 0.60, 600)], { target: 1000, max: 5000 });
  assert.deepEqual(oneDoc.admitted.map((a) => a.index), [0, 1]);
  assert.equal(oneDoc.grewForCluster, false);
  assert.equal(oneDoc.dropped, 1);
});

test('no growth past the target when the hit at the cut is probably irrelevant (min_relevance 0)', () => {
  // Scores as a min_relevance: 0 request meets them: everything below 0.05 is within CLUSTER_MARGIN.
  const low = [item('a', 0.9, 400), item('b', 0.04, 400), item('c', 0.03, 400), item('d', 0.02, 400), item('e', 0.01, 400)];
  const r = admitWithinBudget(low, { target: 1000, max: 5000 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1]);
  assert.equal(r.grewForCluster, false);
  assert.equal(r.tokens, 800);
  // The same shape just above the floor still grows.
  const s = CLUSTER_MIN_SCORE;
  const high = [item('a', 0.9, 400), item('b', s + 0.04, 400), item('c', s + 0.03, 400), item('d', s + 0.02, 400)];
  assert.equal(admitWithinBudget(high, { target: 1000, max: 5000 }).grewForCluster, true);
});

test('a lone best hit larger than the target uses max_tokens, and is cut when larger still', () => {
  const fits = admitWithinBudget([item('a', 0.9, 3000, 1500), item('b', 0.8, 100)], { target: 1000, max: 2000 });
  assert.deepEqual(fits.admitted, [{ index: 0, variant: 'core' }]);
  assert.equal(fits.dropped, 1);
  const cut = admitWithinBudget([item('a', 0.9, 3000, 2500, 20)], { target: 1000, max: 2000 });
  assert.deepEqual(cut.admitted, [{ index: 0, variant: 'core', truncateTo: 1980 }]);
});

test('needsMore asks for further hits only when the decision reached the end of the input', () => {
  assert.equal(admitWithinBudget([item('a', 0.9, 10)], { target: 1000, max: 1000 }, true).needsMore, true);
  assert.equal(admitWithinBudget([item('a', 0.9, 10)], { target: 1000, max: 1000 }, false).needsMore, false);
  assert.equal(admitWithinBudget([item('a', 0.9, 900), item('b', 0.2, 900)], { target: 1000, max: 1000 }, true).needsMore, false);
  // Cut inside a cluster that runs to the end of the input: the cluster may continue beyond it.
  assert.equal(admitWithinBudget([item('a', 0.6, 900), item('b', 0.59, 900)], { target: 1000, max: 1000 }, true).needsMore, true);
  assert.deepEqual(admitWithinBudget([], { target: 100, max: 100 }), { admitted: [], dropped: 0, grewForCluster: false, tokens: 0, needsMore: false });
});

test('admissiblePrefix: no hit past it is ever admitted, whatever the expanded sizes', () => {
  const items = [item('a', 0.9, 500, 100, 10), item('a', 0.8, 500, 100, 10), item('b', 0.7, 500, 100, 10), item('c', 0.6, 500, 100, 10)];
  // all-core sums: 110, 210, 320, 430
  assert.equal(admissiblePrefix(items, 1000), 4);
  assert.equal(admissiblePrefix(items, 320), 3);
  assert.equal(admissiblePrefix(items, 319), 2);
  assert.equal(admissiblePrefix(items, 50), 1);
  assert.equal(admissiblePrefix([], 50), 0);
  for (const max of [50, 150, 250, 319, 320, 430, 1000]) {
    const n = admissiblePrefix(items, max);
    const r = admitWithinBudget(items, { target: max, max });
    assert.ok(r.admitted.every((a) => a.index < n), `max ${max}`);
  }
});

test('past the target a cluster admits only documents the context does not hold yet', () => {
  // a and b are in; the tie at the cut holds more of a, one hit of c, more of b: only c's passes the target.
  const items = [item('a', 0.9, 400), item('b', 0.62, 400), item('a', 0.61, 400), item('c', 0.60, 400), item('b', 0.59, 400)];
  const r = admitWithinBudget(items, { target: 800, max: 5000 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1, 3]);
  assert.equal(r.grewForCluster, true);
  assert.equal(r.tokens, 1200);
  assert.equal(r.dropped, 2);
});
