import { test } from 'node:test';
import assert from 'node:assert/strict';
import { belowNamed, namedSectionChunks, NAMED_SECTION_CHUNKS, outlineSections } from './section-naming.ts';
import type { Region } from '../types.ts';

// A toy analyser: lower-case words, "of"/"and" dropped, a plural's final s dropped.
const analyse = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w !== 'of' && w !== 'and').map((w) => w.replace(/s$/, ''));
const rows = [
  { chunk_index: 0, heading_path: '3M Company' },
  { chunk_index: 1, heading_path: '3M Company > Cash Flows' },
  ...[2, 3, 4, 5, 6].map((i) => ({ chunk_index: i, heading_path: '3M Company > Consolidated Statements of Cash Flows (Millions)' })),
  { chunk_index: 7, heading_path: '3M Company > Consolidated Statements of Cash Flows (Millions) > Cash Flows from Investing Activities' },
  { chunk_index: 8, heading_path: '3M Company > Consolidated Statements of Comprehensive Income' },
  { chunk_index: 9, heading_path: '3M Company > Consolidated Balance Sheets' },
];
const sections = outlineSections(rows, analyse);
const label = new Set(['3m', 'company']);

test('an outline section per heading-path prefix, parenthesised text left out of its terms', () => {
  const cf = sections.find((s) => s.heading.startsWith('Consolidated Statements of Cash Flows'))!;
  assert.deepEqual(cf.terms, ['consolidated', 'statement', 'cash', 'flow']);
  assert.deepEqual(cf.chunks, [2, 3, 4, 5, 6, 7], 'a nested section\'s chunks belong to its parent too');
});

test('a query naming a statement gets the first chunks of that section (and of a section it names whole)', () => {
  const q = new Set(analyse('What was capex in FY2018? Use the cash flow statement.'));
  const got = namedSectionChunks(sections, q, label);
  // "Consolidated Statements of Cash Flows": 3 of 4 terms; "Cash Flows": 2 of 2; "… from Investing Activities": 2 of 4, no.
  assert.deepEqual(got, [1, ...[2, 3, 4, 5, 6, 7].slice(0, NAMED_SECTION_CHUNKS)]);
});

test('one held word, or under two thirds of a heading, names nothing', () => {
  assert.deepEqual(namedSectionChunks(sections, new Set(analyse('cash position of the company')), label), []);
  assert.deepEqual(namedSectionChunks(sections, new Set(analyse('the income statement')), label), [], 'comprehensive income: 2 of 4 terms');
});

test('the label\'s words are the document, not a section: "3M Company" is never named', () => {
  const bare = outlineSections([{ chunk_index: 0, heading_path: 'Balance Sheets' }, { chunk_index: 1, heading_path: '3M Company' }], analyse);
  assert.deepEqual(namedSectionChunks(bare, new Set(analyse('3M company balance sheet')), label), [0]);
});

test('belowNamed: the rest of the document ranks under the weakest passing named region and keeps passing', () => {
  const region = (score: number) => ({ score }) as Region;
  const outside = [region(0.95), region(0.6), region(0.45), region(0.2)];
  belowNamed(outside, [region(0.5), region(0.2)], 0.3);
  const [a, b, c, d] = outside.map((x) => x.score);
  assert.ok(a < 0.5 && a > b && b > 0.3, JSON.stringify(outside));
  assert.equal(c, 0.45, 'under the floor already: unchanged');
  assert.equal(d, 0.2);
  const none = [region(0.9)];
  belowNamed(none, [region(0.25)], 0.3);
  assert.equal(none[0].score, 0.9, 'no named region passes: nothing changes');
  const top = [region(1)];
  belowNamed(top, [region(0.4)], 0.3);
  assert.ok(top[0].score <= 0.4 && top[0].score >= 0.3, String(top[0].score));
});
