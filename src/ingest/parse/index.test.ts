// detectFormat (cheap routing by extension + signature, used by the HTTP route for its 400) and the
// error mapping of parseDocument.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { detectFormat, parseDocument, ParseError, SUPPORTED_EXTENSIONS } from './index.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const docs = path.resolve(repoRoot, '../shared/data/docs');
const read = (rel: string) => fs.readFileSync(path.join(docs, rel));

test('detectFormat: extension confirmed by bytes', () => {
  assert.equal(detectFormat('a.pdf', read('pdf/helloworld-bad_malformed.pdf')), 'pdf');
  assert.equal(detectFormat('a.DOCX', read('docx/word_tables.docx')), 'docx');
  assert.equal(detectFormat('a.html', read('html/example_01.html')), 'html');
  assert.equal(detectFormat('a.htm', read('html/example_01.html')), 'html');
  assert.equal(detectFormat('a.md', read('md/wiki.md')), 'markdown');
  assert.equal(detectFormat('a.markdown', read('md/wiki.md')), 'markdown');
  assert.equal(detectFormat('a.txt', read('txt/fake-text-utf-16.txt')), 'text');
  for (const ext of ['.docx', '.htm', '.html', '.markdown', '.md', '.pdf', '.txt', '.png', '.jpg', '.jpeg', '.tif', '.tiff', '.webp']) {
    assert.ok(SUPPORTED_EXTENSIONS.includes(ext), ext);
  }
  assert.equal(detectFormat('a.png', read('html/example_image_01.png')), 'image');
});

test('detectFormat: unsupported or contradicted types give null', () => {
  assert.equal(detectFormat('a.xlsx', Buffer.from('just some text')), null);
  assert.equal(detectFormat('a.png', Buffer.from('just some text')), null);
  assert.equal(detectFormat('a.pdf', Buffer.from('just some text')), null);
  assert.equal(detectFormat('a.docx', Buffer.from('just some text')), null);
  assert.equal(detectFormat('a.txt', Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff])), null);
  assert.equal(detectFormat('noext', Buffer.from('plain words')), null);
});

test('detectFormat: signature wins over a wrong extension; media type or bytes decide without one', () => {
  assert.equal(detectFormat('report.pdf', read('docx/word_tables.docx')), 'docx');
  assert.equal(detectFormat('report.txt', read('pdf/helloworld-bad_malformed.pdf')), 'pdf');
  assert.equal(detectFormat('download', read('pdf/helloworld-bad_malformed.pdf')), 'pdf');
  assert.equal(detectFormat('download', Buffer.from('# Title\n\ntext'), 'text/markdown; charset=utf-8'), 'markdown');
  assert.equal(detectFormat('page', read('html/wiki_duck.html')), 'html');
});

test('parseDocument: unsupported type -> 415, empty text -> 422', async () => {
  await assert.rejects(
    parseDocument({ data: Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff]), filename: 'x.exe' }),
    (err: unknown) => err instanceof ParseError && err.jobCode === 415 && err.errorCode === 'unsupported_format',
  );
  await assert.rejects(
    parseDocument({ data: Buffer.from('\n\n   \n'), filename: 'blank.txt' }),
    (err: unknown) => err instanceof ParseError && err.jobCode === 422 && err.errorCode === 'no_extractable_text',
  );
});
