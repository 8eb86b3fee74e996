// Real-file tests of the DOCX parser (mammoth -> HTML -> Markdown blocks): GFM tables whose cells match
// the Word tables, headings, lists with markers, embedded images as assets, core title.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import JSZip from 'jszip';
import { parseDocument, ParseError } from './index.ts';
import { parserFor, tableCells } from './test-support.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const docxDir = path.resolve(repoRoot, '../shared/data/docs/docx');
const parse = parserFor(docxDir);

test('word_tables.docx: every table is a GFM table with the Word cells', async () => {
  const doc = await parse('word_tables.docx');
  assert.equal(doc.title, 'Test with tables');
  const tables = doc.blocks.filter((b) => b.kind === 'table');
  assert.ok(tables.length >= 6);
  assert.deepEqual(tableCells(tables[0].text), [
    ['Header 0.0', 'Header 0.1', 'Header 0.2'],
    ['Cell 1.0', 'Cell 1.1', 'Cell 1.2'],
    ['Cell 2.0', 'Cell 2.1', 'Cell 2.2'],
  ]);
  // Horizontal span: the merged cell keeps its text, the spanned column is an empty cell.
  assert.deepEqual(tableCells(tables[1].text)[1], ['Cell 1.0', 'Merged Cell 1.1 1.2', '']);
  // Captions before each table stay paragraphs, in order.
  const idx = doc.blocks.findIndex((b) => b.text === 'A uniform table');
  assert.equal(doc.blocks[idx + 1].kind, 'table');
});

test('word_sample.docx: headings, lists with markers, image asset, table', async () => {
  const doc = await parse('word_sample.docx');
  assert.ok(doc.blocks.some((b) => b.kind === 'heading' && b.text === 'Let’s swim!'));
  const lists = doc.blocks.filter((b) => b.kind === 'list').map((b) => b.text);
  assert.ok(lists.some((l) => /^-\s+You can relax and look around/m.test(l)));
  assert.ok(lists.some((l) => /^1\.\s+Wear sunglasses/m.test(l)));
  assert.equal(doc.images.length, 1);
  assert.equal(doc.images[0].mediaType, 'image/png');
  assert.ok(doc.images[0].data.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])));
  const image = doc.blocks.find((b) => b.kind === 'image');
  assert.equal(image?.assetName, doc.images[0].name);
  assert.equal(image?.text, `[IMAGE: ${doc.images[0].name}]`);
  const table = doc.blocks.find((b) => b.kind === 'table');
  assert.deepEqual(tableCells(table!.text)[1], ['Leaves', 'Ash, Elm, Maple', '50']);
});

test('contains-pictures.docx: inline and floating pictures become assets and references', async () => {
  const doc = await parse('contains-pictures.docx');
  assert.equal(doc.images.length, 5);
  const text = doc.blocks.map((b) => b.text).join('\n');
  for (const img of doc.images) assert.ok(text.includes(`[IMAGE: ${img.name}]`));
});

test('a ZIP that is not a Word package is refused', async () => {
  // (A ZIP of another known format, e.g. an XLSX named .docx, is read as that format: zip-sniff.test.ts.)
  const zip = new JSZip();
  zip.file('readme.txt', 'not an office document');
  await assert.rejects(
    parseDocument({ data: await zip.generateAsync({ type: 'nodebuffer' }), filename: 'sheet.docx' }),
    (err: unknown) => err instanceof ParseError && err.jobCode === 415,
  );
});
