// Bold body-size headings (pdf-blocks.ts boldHeading): the rule on synthetic lines, then a real 10-K whose
// statement titles and sections are bold lines of body size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { chunkDocument } from '../chunking/chunker.ts';
import { boldHeading, linesToBlocks, sentenceFragment } from './pdf-blocks.ts';
import type { Line } from './pdf-layout.ts';
import { parserFor } from './test-support.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

let y = 700;
const line = (text: string, o: Partial<Line> = {}): Line => ({ text, x0: 72, x1: 72 + text.length * 5, y: (y -= 14), size: 10, page: 1, column: 0, band: 0, alone: true, ...o });
const body = (n: number, page = 1): Line[] => Array.from({ length: n }, () => line('Plain body text of ordinary weight that runs across the whole width of the page and on.', { page }));

test('a bold body-size line is a title only when it stands alone, is short, capitalised and holds no figures', () => {
  assert.equal(boldHeading(line('Consolidated Statement of Cash Flows', { bold: true }), 10), true);
  assert.equal(boldHeading(line('Cash Flows from Investing Activities', { bold: true }), 10), true);
  assert.equal(boldHeading(line('Consolidated Statement of Cash Flows'), 10), false, 'not bold');
  assert.equal(boldHeading(line('Net income', { bold: true, alone: false }), 10), false, 'its figures stand beside it');
  assert.equal(boldHeading(line('Current assets:', { bold: true }), 10), false, 'a row label');
  assert.equal(boldHeading(line('(Millions) 2018 2017 2016', { bold: true }), 10), false, 'a column header');
  assert.equal(boldHeading(line('Total shareholders’ equity 4,090', { bold: true }), 10), false);
  assert.equal(boldHeading(line('cash flows from investing activities', { bold: true }), 10), false, 'lower case');
  assert.equal(boldHeading(line('This sentence is set in bold for emphasis.', { bold: true }), 10), false);
  assert.equal(boldHeading(line('Consolidated Statement of Cash Flows', { bold: true, size: 14 }), 10), false, 'larger lines are the size rule’s');
});

test('bold titles become headings: the page’s opening one a level above the sections under it', () => {
  y = 700;
  const lines = [
    ...body(20),
    line('Consolidated Statement of Cash Flows', { bold: true, page: 2 }),
    line('Years ended December 31', { bold: true, page: 2 }),
    line('(Millions) 2018 2017 2016', { bold: true, page: 2 }),
    line('Cash Flows from Investing Activities', { bold: true, page: 2 }),
    line('Purchases of property, plant and equipment (1,577) (1,373) (1,420)', { page: 2 }),
  ];
  const blocks = linesToBlocks(lines);
  const heads = blocks.filter((b) => b.kind === 'heading').map((b) => [b.text, b.level]);
  assert.deepEqual(heads, [['Consolidated Statement of Cash Flows Years ended December 31', 1], ['Cash Flows from Investing Activities', 2]]);
  const chunks = chunkDocument({ title: 'T', blocks, pages: 2, images: [] } as never).chunks;
  const last = chunks.at(-1)!;
  assert.deepEqual(last.heading_path, ['Consolidated Statement of Cash Flows Years ended December 31', 'Cash Flows from Investing Activities']);
  assert.match(last.content, /^\(Millions\) 2018 2017 2016\n\nPurchases/, 'the column header row opens the first section’s chunk (chunker lead-in)');
});

test('where bold is the body’s own weight, bold lines are not headings', () => {
  y = 700;
  const lines = [...body(5).map((l) => ({ ...l, bold: true })), line('Quarterly Highlights', { bold: true }), ...body(5)];
  assert.equal(linesToBlocks(lines).filter((b) => b.kind === 'heading').length, 0);
});

test('a real 10-K: the capital-expenditure row sits under its statement and section headings', async () => {
  const parse = parserFor(path.resolve(repoRoot, '../shared/data/qa/financebench/pdfs'));
  const doc = await parse('3M_2018_10K.pdf');
  const chunks = chunkDocument(doc).chunks;
  const chunk = chunks.find((c) => c.content.includes('Purchases of property, plant and equipment (PP&E)') && c.page_start === 60);
  assert.ok(chunk, 'the cash-flow statement row is in a chunk of page 60');
  const headings = chunk.heading_path.join(' > ');
  assert.match(headings, /Consolidated Statement of Cash Flow/);
  assert.match(headings, /Cash Flows from Investing Activities$/);
  const sheet = chunks.find((c) => c.page_start === 58);
  assert.match(sheet!.heading_path.join(' > '), /Consolidated Balance Sheet/);
});

test('a sentence fragment is never a heading: lower-case opening or a clause ending', () => {
  assert.equal(sentenceFragment('quarter, an increase of 10% due to an increase in business volume;'), true);
  assert.equal(sentenceFragment('the prior year quarter, an increase of 3%; and'), true);
  assert.equal(sentenceFragment('current 90-day lockup agreement. Johnson & Johnson is under no obligation'), true);
  assert.equal(sentenceFragment('Consolidated Results'), false);
  assert.equal(sentenceFragment('2023 financial results'), false, 'a figure first: the title rule decides');
  assert.equal(sentenceFragment('(d) Exhibits.'), false);
  assert.equal(sentenceFragment('الملخص التنفيذي'), false, 'scripts without case');
  y = 700;
  const lines = [...body(20), line('Quarterly results', { size: 14 }), ...body(2), line('increase of 77%;', { size: 14 }), ...body(2)];
  assert.deepEqual(linesToBlocks(lines).filter((b) => b.kind === 'heading').map((b) => b.text), ['Quarterly results']);
});

test('a large line that carries on a bulleted item of its size is the item’s next line, not a heading', () => {
  y = 700;
  const lines = [
    ...body(20),
    line('• Consolidated net revenues of $3.6 billion, an increase of 18% compared to the', { size: 12 }),
    line('prior year quarter;', { size: 12, x0: 80 }),
    line('• Record results for Las Vegas Strip Resorts and', { size: 12 }),
    line('Regional Operations', { size: 12, x0: 80 }),
    line('• Net income of $1.4 billion.', { size: 12 }),
    line('Regional Results', { size: 12 }),
    ...body(3),
  ];
  const blocks = linesToBlocks(lines);
  assert.deepEqual(blocks.filter((b) => b.kind === 'heading').map((b) => b.text), ['Regional Results'], 'after an item that ended its sentence, a large line is a heading again');
  const list = blocks.find((b) => b.kind === 'list')!;
  assert.match(list.text, /compared to the prior year quarter;/);
  assert.match(list.text, /Strip Resorts and Regional Operations/);
});
