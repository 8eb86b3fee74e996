// Tests of format detection for the package and text formats: every sample file is recognised by its
// content (ZIP entries, stored mimetype, RTF/CSV/EML text), misnamed packages follow their content,
// an encrypted OOXML (OLE container) is kept for the parser to refuse as encrypted, and a ZIP of
// nothing known is not accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { detectFormat, parseDocument, SUPPORTED_EXTENSIONS } from './index.ts';
import { listZipEntries, storedMimetype, zipInflatedBytes } from './zip-sniff.ts';

const docs = path.resolve(import.meta.dirname, '../../../../shared/data/docs');
const read = (rel: string) => fs.readFileSync(path.join(docs, rel));

test('every sample in the new format folders is detected as its format', () => {
  const expected: Record<string, string> = { pptx: 'pptx', xlsx: 'xlsx', ods: 'ods', odt: 'odt', odp: 'odp', epub: 'epub', rtf: 'rtf', eml: 'eml', csv: 'csv' };
  for (const [dir, format] of Object.entries(expected)) {
    for (const f of fs.readdirSync(path.join(docs, dir))) {
      assert.equal(detectFormat(f, read(`${dir}/${f}`)), format, `${dir}/${f}`);
    }
  }
  for (const ext of ['.pptx', '.xlsx', '.odt', '.ods', '.odp', '.epub', '.rtf', '.eml', '.csv', '.tsv', '.json']) {
    assert.ok(SUPPORTED_EXTENSIONS.includes(ext), ext);
  }
});

test('content beats the name: misnamed packages, RTF and e-mail without extension', () => {
  assert.equal(detectFormat('slides.docx', read('pptx/powerpoint_sample.pptx')), 'pptx');
  assert.equal(detectFormat('upload.bin', read('xlsx/stanley-cups.xlsx')), 'xlsx');
  assert.equal(detectFormat('book', read('epub/tika_testEPUB.epub')), 'epub');
  assert.equal(detectFormat('notes.txt', read('odt/fake.odt')), 'odt');
  assert.equal(detectFormat('letter', read('rtf/fake-doc.rtf')), 'rtf');
  assert.equal(detectFormat('mail', read('eml/mime-different-plain-html.eml')), 'eml');
  assert.equal(detectFormat('data', Buffer.from('{"a":1}'), 'application/json'), 'json');
  assert.equal(detectFormat('x.pptx', Buffer.from('not a zip at all')), null);
  assert.equal(detectFormat('x.rtf', Buffer.from('plain words, no RTF header')), null);
});

test('a password-protected OOXML (OLE container) is detected, then refused as encrypted', async () => {
  const data = read('xlsx/password_protected.xlsx');
  assert.equal(detectFormat('password_protected.xlsx', data), 'xlsx');
  assert.equal(detectFormat('password_protected.docx', data), 'docx');
  await assert.rejects(parseDocument({ data, filename: 'p.pptx' }), (err: { errorCode: string }) => err.errorCode === 'encrypted_document');
});

test('central directory listing and stored mimetype', async () => {
  assert.equal(storedMimetype(read('odt/fake.odt')), 'application/vnd.oasis.opendocument.text');
  assert.ok(listZipEntries(read('pptx/pptx_chart.pptx'))!.includes('ppt/presentation.xml'));
  const zip = new JSZip();
  zip.file('readme.txt', 'hello');
  const other = await zip.generateAsync({ type: 'nodebuffer' });
  assert.deepEqual(listZipEntries(other), ['readme.txt']);
  assert.equal(detectFormat('archive.xlsx', other), null);
  await assert.rejects(parseDocument({ data: other, filename: 'archive.xlsx' }), (err: { errorCode: string }) => err.errorCode === 'unsupported_format');
});

test('zipInflatedBytes sums the declared sizes of the central directory', async () => {
  const zip = new JSZip();
  zip.file('a.xml', 'x'.repeat(10_000));
  zip.file('b/c.txt', 'hello');
  const data = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
  assert.ok(data.length < 1000);
  assert.equal(zipInflatedBytes(data), 10_005);
  assert.equal(zipInflatedBytes(Buffer.from('not a zip')), 0);
});
