// Real-file tests of the HTML parser: Wikipedia page chrome removed, headings and images kept, legacy
// charsets decoded via <meta>/sniffing, data-URI images extracted, nothing fetched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parserFor } from './test-support.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const htmlDir = path.resolve(repoRoot, '../shared/data/docs/html');
const parse = parserFor(htmlDir);

test('wiki_duck.html: title, section headings, no navigation noise, image references', async () => {
  const doc = await parse('wiki_duck.html');
  assert.equal(doc.title, 'Duck - Wikipedia');
  const headings = doc.blocks.filter((b) => b.kind === 'heading');
  assert.equal(headings[0].text, 'Duck');
  assert.equal(headings[0].level, 1);
  for (const h of ['Etymology', 'Taxonomy', 'Morphology']) assert.ok(headings.some((b) => b.text === h && b.level === 2), h);
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.match(text, /Duck\*\* is the common name for numerous species of waterfowl/);
  assert.ok(!text.includes('Afrikaans'), 'interlanguage links removed');
  assert.ok(!/function\s*\(|mw\.config/.test(text), 'scripts removed');
  assert.ok(!text.includes('https://'), 'link targets dropped');
  const images = doc.blocks.filter((b) => b.kind === 'image');
  assert.ok(images.length >= 5);
  assert.ok(images.every((b) => b.text === `[IMAGE: ${b.assetName}]` && /\.(jpg|png|svg)/i.test(b.assetName ?? '')));
  assert.ok(doc.blocks.some((b) => b.kind === 'table'));
  assert.equal(doc.images.length, 0, 'remote images are referenced, never fetched');
});

test('fake-html-cp1252.html: windows-1252 bytes decoded, <pre> fenced', async () => {
  const doc = await parse('fake-html-cp1252.html');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.match(text, /Die schöne Frau/);
  assert.match(text, /15,50 €/);
  assert.ok(doc.blocks.some((b) => b.kind === 'code' && b.text.startsWith('```')));
  assert.equal(doc.title, 'My First Heading');
});

test('fake-html-with-base64-image.html: data-URI image becomes an asset', async () => {
  const doc = await parse('fake-html-with-base64-image.html');
  assert.equal(doc.images.length, 1);
  assert.equal(doc.images[0].mediaType, 'image/jpeg');
  assert.ok(doc.images[0].data.subarray(0, 2).equals(Buffer.from([0xff, 0xd8])));
  assert.ok(doc.blocks.some((b) => b.kind === 'image' && b.assetName === doc.images[0].name));
});

test('example_01.html: lists keep their markers (including an ordered start)', async () => {
  const doc = await parse('example_01.html');
  const lists = doc.blocks.filter((b) => b.kind === 'list').map((b) => b.text).join('\n');
  assert.match(lists, /^-\s+First item in unordered list/m);
  assert.match(lists, /^1\.\s+First item in ordered list/m);
  assert.match(lists, /^42\.\s+First item in ordered list with start/m);
});
