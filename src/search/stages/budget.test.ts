import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissiblePrefix, admitWithinBudget, clampBudget, type BudgetItem } from './budget.ts';

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

test('hits tied at the cut from other documents do not take the budget past the target', () => {
  // b fits the target; c and d score within 0.05 of it, from other documents: the cut stays at c.
  const items = [item('a', 0.9, 400), item('b', 0.62, 400), item('c', 0.60, 400), item('d', 0.58, 400), item('e', 0.3, 400)];
  const r = admitWithinBudget(items, { target: 1000, max: 5000 });
  assert.deepEqual(r.admitted.map((a) => a.index), [0, 1]);
  assert.equal(r.dropped, 3);
  assert.equal(r.tokens, 800);
});

test('a lone best hit larger than the target uses max_tokens, and is cut when larger still', () => {
  const fits = admitWithinBudget([item('a', 0.9, 3000, 1500), item('b', 0.8, 100)], { target: 1000, max: 2000 });
  assert.deepEqual(fits.admitted, [{ index: 0, variant: 'core' }]);
  assert.equal(fits.dropped, 1);
  const cut = admitWithinBudget([item('a', 0.9, 3000, 2500, 20)], { target: 1000, max: 2000 });
  assert.deepEqual(cut.admitted, [{ index: 0, variant: 'core', truncateTo: 1980 }]);
});

test('no hits, nothing admitted', () => {
  assert.deepEqual(admitWithinBudget([], { target: 100, max: 100 }), { admitted: [], dropped: 0, tokens: 0 });
});

test('admissiblePrefix: no hit past it is ever admitted, whatever the expanded sizes', () => {
  const items = [item('a', 0.9, 500, 100, 10), item('a', 0.8, 500, 100, 10), item('b', 0.7, 500, 100, 10), item('c', 0.6, 500, 100, 10)];
  // all-core sums: 110, 210, 320, 430
  assert.equal(admissiblePrefix(items, 1000), 4);
  assert.equal(admissiblePrefix(items, 320), 3);
  assert.equal(admissiblePrefix(items, 319), 2);
  assert.equal(admissiblePrefix(items, 50), 1);
  assert.equal(admissiblePrefix([], 50), 0);
  for (const target of [50, 150, 250, 319, 320, 430, 1000]) {
    const n = admissiblePrefix(items, target);
    for (const max of [target, 5000]) {
      const r = admitWithinBudget(items, { target, max });
      assert.ok(r.admitted.every((a) => a.index < n), `target ${target}, max ${max}`);
    }
  }
});
