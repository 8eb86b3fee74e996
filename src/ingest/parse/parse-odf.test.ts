// Real-file tests of the OpenDocument parsers (ODT, ODS, ODP): headings from outline levels and
// Title/Subtitle styles, nested lists, tables with their cells, one page per sheet/slide, notes, and
// password-protected packages refused as encrypted. fake.odt is a genuine (tiny) ODT and parses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from './index.ts';
import { tableCells } from './test-support.ts';

const docs = path.resolve(import.meta.dirname, '../../../../shared/data/docs');
const parse = (rel: string) => parseDocument({ data: fs.readFileSync(path.join(docs, rel)), filename: path.basename(rel) });

test('text_document_01.odt: title, heading levels, nested list', async () => {
  const doc = await parse('odt/text_document_01.odt');
  assert.equal(doc.title, 'Title');
  const headings = doc.blocks.filter((b) => b.kind === 'heading').map((h) => [h.text, h.level]);
  assert.deepEqual(headings.slice(0, 4), [['Title', 1], ['Subtitle', 2], ['heading level 1.0', 1], ['Heading level 2: A', 2]]);
  const list = doc.blocks.find((b) => b.kind === 'list')!;
  assert.match(list.text, /^- numbered list 1\n- numbered list 2\n {2}- bullet list 2\.1/);
  assert.match(list.text, /\n {4}- bullet list 2\.2\.1/);
});

test('fake.odt parses: paragraph and a table with its cells', async () => {
  const doc = await parse('odt/fake.odt');
  assert.equal(doc.pages, 1);
  assert.equal(doc.blocks[0].text, 'Lorem ipsum dolor sit amet.');
  assert.deepEqual(tableCells(doc.blocks.find((b) => b.kind === 'table')!.text), [
    ['Header row', 'Mon', 'Wed', 'Fri'], ['Color', 'Blue', 'Red', 'Green'], ['Time', '1pm', '2pm', '3pm'], ['Leader', 'Sarah', 'Mark', 'Ryan'],
  ]);
});

test('tika_testODTEncrypted.odt is refused as encrypted (422)', async () => {
  await assert.rejects(parse('odt/tika_testODTEncrypted.odt'), (err: { jobCode: number; errorCode: string; message: string }) =>
    err.jobCode === 422 && err.errorCode === 'encrypted_document' && /password/.test(err.message));
});

test('odf_table_with_title_01.ods: sheet heading, caption, table', async () => {
  const doc = await parse('ods/odf_table_with_title_01.ods');
  assert.equal(doc.pages, 1);
  assert.deepEqual(doc.blocks.slice(0, 2).map((b) => [b.kind, b.text]), [['heading', 'Sheet1'], ['paragraph', 'Number of freshwater ducks per year']]);
  const cells = tableCells(doc.blocks[2].text);
  assert.deepEqual(cells[0], ['Year', 'Freshwater Ducks']);
  assert.deepEqual(cells.at(-1), ['2024', '180']);
});

test('odf_presentation_01.odp: one page per slide, titles, table, notes', async () => {
  const doc = await parse('odp/odf_presentation_01.odp');
  assert.equal(doc.pages, 3);
  assert.equal(doc.title, 'Test Table Slide');
  const headings = doc.blocks.filter((b) => b.kind === 'heading').map((h) => [h.text, h.page]);
  assert.deepEqual(headings, [['Test Table Slide', 1], ['Second slide title', 2], ['Notes', 2], ['Slide 3', 3], ['Notes', 3]]);
  const cells = tableCells(doc.blocks.find((b) => b.kind === 'table')!.text);
  assert.deepEqual(cells[0], ['', 'Class1', '', '', 'Class2', '', '']);
  assert.ok(doc.blocks.some((b) => b.text === 'Final notes on the third slide.' && b.page === 3));
});
