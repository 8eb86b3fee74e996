// Split-word repair (pdf-word-repair.ts): the rule on small inputs, then a real EDGAR filing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Block } from './types.ts';
import { repairSplitWords } from './pdf-word-repair.ts';
import { parserFor } from './test-support.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

const p = (text: string, page = 1): Block => ({ kind: 'paragraph', text, page });

test('a word split before its last letter is joined when the document vouches for the whole word', () => {
  const out = repairSplitWords([
    { kind: 'heading', text: 'Consolidated Balance Shee t', level: 2, page: 58 },
    p('Total stockholders’ equit y 9,848'),
    p('The balance sheet shows equity and assets.'),
  ]);
  assert.equal(out[0].text, 'Consolidated Balance Sheet');
  assert.equal(out[0].kind, 'heading');
  assert.equal(out[1].text, 'Total stockholders’ equity 9,848');
  assert.equal(out[2].text, 'The balance sheet shows equity and assets.');
});

test('splits are kept when the left part is a word of the document or the joined word is unknown', () => {
  const blocks = [p('Consolidated Statement of Cash Flow s'), p('Cash flow from operations; cash flows.'), p('Acme LLC d/b/a Acme'), p('Yes x No')];
  const out = repairSplitWords(blocks);
  assert.deepEqual(out.map((b) => b.text), blocks.map((b) => b.text));
  assert.equal(out[0], blocks[0], 'unchanged blocks are returned as they are');
});

test('any cased script; numbers and single letters as words are not touched', () => {
  const out = repairSplitWords([p('Баланс активо в'), p('активов и пассивов'), p('Item 7 a 2018'), p('Vitamin D b12')]);
  assert.equal(out[0].text, 'Баланс активов');
  assert.equal(out[2].text, 'Item 7 a 2018');
  assert.equal(out[3].text, 'Vitamin D b12');
});

test('capitals split before their last one to three letters are joined by the same rule', () => {
  const out = repairSplitWords([
    { kind: 'heading', text: 'FINANCIAL CONDITION AND LIQUIDI TY', level: 2, page: 40 },
    { kind: 'heading', text: 'CRITICAL ACCOUNTING ESTIMA TES', level: 2, page: 41 },
    p('Our liquidity and the estimates we make. Apple I and Form S are names; THE CEO spoke.'),
  ]);
  assert.equal(out[0].text, 'FINANCIAL CONDITION AND LIQUIDITY');
  assert.equal(out[1].text, 'CRITICAL ACCOUNTING ESTIMATES');
  assert.equal(out[2].text, 'Our liquidity and the estimates we make. Apple I and Form S are names; THE CEO spoke.', 'a capital after a mixed-case word starts a word; an unknown join stays');
});

test('a real EDGAR filing: the statement titles pdfjs splits are whole words again', async () => {
  const parse = parserFor(path.resolve(repoRoot, '../shared/data/qa/financebench/pdfs'));
  const doc = await parse('3M_2018_10K.pdf');
  const page58 = doc.blocks.filter((b) => b.page === 58).map((b) => b.text).join('\n');
  assert.match(page58, /Consolidated Balance Sheet\b/);
  const all = doc.blocks.map((b) => b.text).join('\n');
  for (const broken of ['Shee t', 'Equit y', 'Informatio n']) assert.ok(!all.includes(broken), broken);
  assert.ok(all.includes('Cash Flow s'), 'a split whose left part is a word of the document ("flow") is left alone');
});
