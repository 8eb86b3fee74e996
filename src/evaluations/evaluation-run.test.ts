// Unit tests of the report arithmetic (evaluation-run.ts): the sweep a variant gets, the recommended
// min_relevance (the best found share, the highest value on a tie), and shares over the asked cases only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sweepOf, variantName, variantReport, type Asked } from './evaluation-run.ts';

const asked = (found: boolean, sweep: boolean[], tokens = 100): Asked => ({
  result: { index: 0, found, rank: found ? 1 : null, score: found ? 0.9 : null, tokens, latency_ms: 10, ...(found ? {} : { miss_cause: 'below_threshold' as const }) },
  measures: { ndcg10: found ? 1 : 0, recall10: found ? 1 : 0, rr: found ? 1 : 0, empty: false },
  pairs: [[0.9, found], [0.1, false]],
  sweep,
});

test('the sweep: 0..0.6 by 0.1 plus the variant\'s own min_relevance', () => {
  assert.deepEqual(sweepOf({}), [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
  assert.deepEqual(sweepOf({ min_relevance: 0.45 }), [0, 0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.6]);
  assert.equal(variantName({}, 0), 'default');
  assert.equal(variantName({ min_relevance: 0.5 }, 2), 'variant-3');
  assert.equal(variantName({ name: 'x' }, 2), 'x');
});

test('recommended min_relevance: the most found, the highest value among equals; unknown documents left out of the shares', () => {
  const sweep = [0, 0.1, 0.2];
  const unknown: Asked = { result: { index: 3, found: false, rank: null, score: null, tokens: 0, latency_ms: 0, miss_cause: 'unknown_document' }, pairs: [], sweep: [false, false, false] };
  const r = variantReport({}, 0, sweep, [asked(true, [true, true, true]), asked(false, [true, true, false]), asked(true, [false, true, true], 300), unknown]);
  assert.deepEqual(r.min_relevance_sweep.map((p) => p.found), [2, 3, 2]);
  assert.deepEqual(r.recommended_min_relevance, { value: 0.1, found_share: 1 });
  assert.equal(r.cases, 4);
  assert.equal(r.evaluated, 3);
  assert.equal(r.found_share, 0.667);
  assert.equal(r.tokens_mean, 167);
  assert.equal(r.misses.below_threshold, 1);
  assert.equal(r.misses.unknown_document, 1);
  assert.equal(r.reliability.length, 2);
  const tie = variantReport({}, 0, sweep, [asked(true, [true, true, true])]);
  assert.equal(tie.recommended_min_relevance.value, 0.2);
});
