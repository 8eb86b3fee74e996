import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namedSectionChunks, NAMED_SECTION_CHUNKS, outlineSections } from './section-naming.ts';

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
