// Real-file tests of the EPUB parser: spine order (not manifest order), chapters through the HTML path,
// OPF title, one page per content document, images from the package as assets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parserFor } from './test-support.ts';

const dir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/epub');
const parse = parserFor(dir);

test('tika_testEPUB.epub: OPF title, spine order, chapter headings, table, cover image', async () => {
  const doc = await parse('tika_testEPUB.epub');
  assert.equal(doc.title, 'An ePub for Tika');
  assert.equal(doc.pages, 4);
  const headings = doc.blocks.filter((b) => b.kind === 'heading').map((h) => [h.text, h.level, h.page]);
  assert.deepEqual(headings, [
    ['Table of Contents', 3, 2], ['Chapter 1', 1, 3], ['Chapter 2', 1, 4], ['Subchapter 2.1', 2, 4], ['Subchapter 2.2', 2, 4],
  ]);
  assert.ok(doc.blocks.some((b) => b.kind === 'list' && /First item/.test(b.text)));
  assert.ok(doc.blocks.some((b) => b.kind === 'table' && b.page === 4));
  assert.deepEqual(doc.images.map((i) => [i.name, i.mediaType]), [['CoverDesign.jpg', 'image/jpeg']]);
});

test('winter-sports.epub: a Gutenberg book in reading order', async () => {
  const doc = await parse('winter-sports.epub');
  assert.equal(doc.title, 'Winter Sports in Switzerland');
  assert.equal(doc.pages, 10);
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(text.indexOf('WINTER SPORTS') < text.indexOf('THE SUN-SEEKER'), 'front matter before chapter I');
  for (let i = 1; i < doc.blocks.length; i++) assert.ok(doc.blocks[i].page >= doc.blocks[i - 1].page);
});
