// Real-file tests of the PPTX parser: a slide table comes out as a GFM table whose cells equal the
// a:tc texts of the slide XML; one page per slide in presentation order with the title as heading;
// speaker notes under "Notes"; pictures as assets; charts as tables of their series.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { parserFor, tableCells } from './test-support.ts';

const dir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/pptx');
const parse = parserFor(dir);

test('fake-power-point-table.pptx: the table cells equal the slide XML cells', async () => {
  const file = fs.readFileSync(path.join(dir, 'fake-power-point-table.pptx'));
  const xml = await (await JSZip.loadAsync(file)).file('ppt/slides/slide1.xml')!.async('string');
  const expected = [...xml.matchAll(/<a:tr\b[\s\S]*?<\/a:tr>/g)].map((tr) =>
    [...tr[0].matchAll(/<a:tc\b[\s\S]*?<\/a:tc>/g)].map((tc) => [...tc[0].matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => m[1]).join('')));
  assert.equal(expected.length, 4);
  const doc = await parse('fake-power-point-table.pptx');
  assert.equal(doc.pages, 1);
  assert.equal(doc.title, 'A Slide with a Table');
  assert.deepEqual(doc.blocks[0], { kind: 'heading', text: 'A Slide with a Table', level: 1, page: 1 });
  const table = doc.blocks.find((b) => b.kind === 'table')!;
  assert.deepEqual(tableCells(table.text), expected);
  assert.deepEqual(tableCells(table.text)[1], ['Red', 'Green', 'Blue']);
});

test('powerpoint_sample.pptx: slides in order, titles as headings, lists, notes, merged cells', async () => {
  const doc = await parse('powerpoint_sample.pptx');
  assert.equal(doc.pages, 3);
  const headings = doc.blocks.filter((b) => b.kind === 'heading').map((h) => [h.text, h.level, h.page]);
  assert.deepEqual(headings, [
    ['Test Table Slide', 1, 1], ['Second slide title', 1, 2], ['Notes', 2, 2], ['Slide 3', 1, 3], ['Notes', 2, 3],
  ]);
  const list = doc.blocks.find((b) => b.kind === 'list' && b.page === 2)!;
  assert.equal(list.text, '- With foo\n- Bar\n- And baz things');
  assert.ok(doc.blocks.some((b) => b.kind === 'paragraph' && b.text === 'Some notes on the second slide.' && b.page === 2));
  const cells = tableCells(doc.blocks.find((b) => b.kind === 'table')!.text);
  assert.deepEqual(cells[1].slice(0, 4), ['', 'A merged with B', '', 'C']);
  assert.ok(!doc.blocks.some((b) => /^\d+$/.test(b.text)), 'slide numbers are not text');
});

test('powerpoint_with_image.pptx: the picture is an asset referenced by an image block', async () => {
  const doc = await parse('powerpoint_with_image.pptx');
  assert.equal(doc.images.length, 1);
  const [img] = doc.images;
  assert.equal(img.name, 'image1.png');
  assert.equal(img.mediaType, 'image/png');
  assert.deepEqual([...img.data.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.ok(doc.blocks.some((b) => b.kind === 'image' && b.text === '[IMAGE: image1.png]' && b.assetName === 'image1.png'));
});

test('pptx_chart.pptx: charts become a caption and a table of series values', async () => {
  const doc = await parse('pptx_chart.pptx');
  assert.equal(doc.pages, 2);
  const tables = doc.blocks.filter((b) => b.kind === 'table').map((b) => tableCells(b.text));
  assert.deepEqual(tables[0][0], ['Category', 'Freshwater Ducks', 'Saltwater Ducks']);
  assert.deepEqual(tables[0][4], ['2022', '175', '130']);
  assert.equal(tables[1].length, 4);
});
