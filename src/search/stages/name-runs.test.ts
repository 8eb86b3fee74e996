import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RUN_WORDS, namingRuns, queryWordRuns } from './name-runs.ts';
import { routeDocuments } from './route-documents.ts';

test('word runs: consecutive written words joined, longest first, not across a clause or a word with digits', () => {
  const runs = queryWordRuns("How did Bank of America's net sales grow in FY2022, and why?");
  const texts = runs.map((r) => r.text);
  assert.ok(texts.includes('bankofamerica'), texts.join(' '));
  assert.ok(texts.includes('bankofamericanet'), 'up to MAX_RUN_WORDS words');
  assert.ok(!texts.some((t) => t.includes('2022')), 'a word with digits takes no part (a period is no name)');
  assert.ok(!texts.some((t) => t.includes('andwhy') && t.startsWith('grow')), 'no run crosses the comma');
  assert.ok(runs.every((r) => r.words.length >= 2 && r.words.length <= MAX_RUN_WORDS && r.text.length >= 6));
  const atBank = runs.filter((r) => r.words[0] === 'Bank').map((r) => r.words.length);
  assert.deepEqual(atBank, [...atBank].sort((a, b) => b - a), 'longest first at each start');
  assert.deepEqual(queryWordRuns('Coca-Cola revenue').find((r) => r.words.length === 1)?.text, 'cocacola', 'one word joined by a hyphen');
  assert.deepEqual(queryWordRuns('in Q4'), [], 'shorter than MIN_RUN_CHARS, or with digits');
});

test('naming runs: the longest run a label names at each start, none inside a run taken', () => {
  const labels = ['americanexpress', 'americanwaterworks', 'bankofamerica'];
  const naming = (text: string) => labels.filter((l) => l.startsWith(text));
  const got = (q: string) => namingRuns(queryWordRuns(q), naming).map(({ run, docs }) => [run.text, docs]);
  assert.deepEqual(got("What is American Express's net income?"), [['americanexpress', ['americanexpress']]]);
  assert.deepEqual(got('Is American Water Works capital-intensive?'), [['americanwaterworks', ['americanwaterworks']]]);
  assert.deepEqual(got('Did Bank of America raise its dividend?'), [['bankofamerica', ['bankofamerica']]]);
  assert.deepEqual(got('What did the American market do?'), [], 'a single word is named as before (label-index.ts), not as a run');
});

test('routing: a run names in place of its words ("American Express", not every label beginning "american")', () => {
  // Groups: 0 "american", 1 "express", 2 "2022". The word "american" begins two labels; the run one.
  const docs = { amex22: [true, false, true], water22: [true, false, true], amex21: [true, false, false], kraft22: [false, false, true] };
  const holders = [0, 1, 2].map((w) => new Set(Object.keys(docs).filter((d) => docs[d as keyof typeof docs][w])));
  const pool = [
    { docId: 'amex22', holds: [true, true, true, true] }, { docId: 'water22', holds: [true, false, true, false] },
    { docId: 'kraft22', holds: [false, false, true, false] },
  ];
  // A year is a piece of a label compound: it narrows but never names.
  const base = { names: [holders[0], holders[1], new Set<string>()], holders, docCount: 4, pool };
  assert.deepEqual(routeDocuments(base)?.routed, ['amex22', 'water22'], 'the word alone names both companies');
  const run = { groups: [0, 1], names: new Set(['amex22', 'amex21']), joined: 3 };
  assert.deepEqual(routeDocuments({ ...base, runs: [run] })?.routed, ['amex22'], 'the run names one company, its year narrows');
  // Another company that writes "American Express" in its text (a card it accepts) weakens the run's naming
  // share as it weakens a word's; the run's own documents hold the joined label word in every chunk.
  const mentions = [...pool, { docId: 'kraft22', holds: [true, true, true, false] }, { docId: 'water22', holds: [true, true, false, false] }];
  assert.equal(routeDocuments({ ...base, pool: mentions, runs: [run] }), null, 'written as much by others: no name');
});
