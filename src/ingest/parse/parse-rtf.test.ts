// Real-file tests of the RTF parser: code pages (Shift-JIS via \fcharset128, \u escapes for Czech)
// without mojibake, \info\title, outline-level headings, tables, pictures as assets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parserFor } from './test-support.ts';

const dir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/rtf');
const parse = parserFor(dir);
const MOJIBAKE = /[\ufffd]|Ã.|Å.|â€|ƒ|\?\?\?/;

test('tika_testRTFJapanese.rtf: Shift-JIS text and title decode cleanly', async () => {
  const doc = await parse('tika_testRTFJapanese.rtf');
  assert.equal(doc.title, 'ゾルゲと尾崎、淡々と最期');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(text.includes('古書店で処刑記録見つかる'));
  assert.ok(text.includes('リヒアルト・ゾルゲ'));
  assert.doesNotMatch(text, MOJIBAKE);
  assert.ok(doc.blocks.some((b) => b.kind === 'list' && b.text.startsWith('1. ゾルゲの処刑記録')));
});

test('tika_testRTFWord2010CzechCharacters.rtf: Czech diacritics from \\u escapes', async () => {
  const doc = await parse('tika_testRTFWord2010CzechCharacters.rtf');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(text.startsWith('Článek týdne'));
  assert.ok(text.includes('Svitky od Mrtvého moře jsou starověké židovské náboženské texty'));
  assert.doesNotMatch(text, MOJIBAKE);
});

test('fake-doc.rtf: heading from \\outlinelevel, paragraphs, table rows', async () => {
  const doc = await parse('fake-doc.rtf');
  assert.deepEqual(doc.blocks.map((b) => [b.kind, b.text.split('\n')[0]]), [
    ['heading', 'My First Heading'], ['paragraph', 'My first paragraph.'], ['paragraph', 'Table Example:'], ['table', '| Column 1 | Column 2 |'],
  ]);
  assert.match(doc.blocks[3].text, /\| Row 2, Cell 1 \| Row 2, Cell 2 \|$/);
});

test('tika_testRTFRegularImages.rtf: JPEG pictures become assets in place', async () => {
  const doc = await parse('tika_testRTFRegularImages.rtf');
  assert.deepEqual(doc.images.map((i) => [i.name, i.mediaType]), [['image-1.jpg', 'image/jpeg'], ['image-2.jpg', 'image/jpeg']]);
  for (const img of doc.images) assert.deepEqual([...img.data.subarray(0, 2)], [0xff, 0xd8]);
  assert.deepEqual(doc.blocks.map((b) => b.text), ['Duck:', '[IMAGE: image-1.jpg]', 'cat:', '[IMAGE: image-2.jpg]']);
});
