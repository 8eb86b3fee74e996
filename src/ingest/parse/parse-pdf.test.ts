// Real-file tests of the PDF parser (../shared/data/docs/pdf): text layer, pages, title, headings,
// two-column reading order, hyphen joins, page furniture, encrypted / malformed / scanned (OCR) inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseDocument, ParseError } from './index.ts';
import { parserFor } from './test-support.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const pdfDir = path.resolve(repoRoot, '../shared/data/docs/pdf');
const parse = parserFor(pdfDir);

async function rejectsWith(name: string, jobCode: number, errorCode: string) {
  await assert.rejects(parse(name), (err: unknown) => {
    assert.ok(err instanceof ParseError, `expected ParseError, got ${err}`);
    assert.equal(err.jobCode, jobCode);
    assert.equal(err.errorCode, errorCode);
    return true;
  });
}

test('tracemonkey.pdf: 14 pages, title, text, headings, two-column order', async () => {
  const doc = await parse('tracemonkey.pdf');
  assert.equal(doc.pages, 14);
  assert.match(doc.title ?? '', /Trace-based Just-in-Time Type Specialization/);
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.match(text, /TraceMonkey/);
  assert.ok(doc.blocks.every((b) => b.page >= 1 && b.page <= 14));
  for (let i = 1; i < doc.blocks.length; i++) assert.ok(doc.blocks[i].page >= doc.blocks[i - 1].page);
  assert.ok(doc.blocks.some((b) => b.page === 14));
  // Hyphenated line break "com-" / "pile" re-joined; TeX accents recomposed.
  assert.match(text, /more difficult to compile than statically typed ones/);
  assert.match(text, /naïve/);
  const headings = doc.blocks.filter((b) => b.kind === 'heading');
  const sec3 = headings.find((h) => h.text === '3. Trace Trees');
  const sub31 = headings.find((h) => h.text === '3.1 Traces');
  assert.ok(sec3 && sub31, 'section and subsection headings detected');
  assert.ok((sub31.level ?? 0) > (sec3.level ?? 0));
  // Left column of page 1 (abstract) is read before the right column ("and is used for ...").
  const abstractIdx = doc.blocks.findIndex((b) => b.text.startsWith('Dynamic languages such as JavaScript are more'));
  const rightIdx = doc.blocks.findIndex((b) => b.text.startsWith('and is used for the application logic'));
  assert.ok(abstractIdx >= 0 && rightIdx > abstractIdx);
  assert.ok((doc.imageCount ?? 0) > 0);
});

test('redp5110_sampled.pdf: 18 pages, title, section headings, running footers dropped', async () => {
  const doc = await parse('redp5110_sampled.pdf');
  assert.equal(doc.pages, 18);
  assert.match(doc.title ?? '', /Row and Column Access Control/);
  const headings = doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text);
  assert.ok(headings.includes('1.1 Security fundamentals'));
  assert.ok(headings.some((h) => h.startsWith('Chapter 1.')));
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(!text.includes('© Copyright IBM Corp. 2014. All rights reserved.'), 'running footer removed');
  assert.ok(doc.blocks.some((b) => b.kind === 'list'));
  assert.equal(doc.imageCount, 18);
});

test('password-protected PDFs are refused with 422 encrypted_document', async () => {
  await rejectsWith('password_protected_pw-password.pdf', 422, 'encrypted_document');
  await rejectsWith('docling_locked_pw-1234.pdf', 422, 'encrypted_document');
});

test('owner-password-only PDF opens (no user password needed)', async () => {
  const doc = await parse('tika_testPDF_protected_owner.pdf');
  assert.ok(doc.blocks.length > 10);
});

test('malformed PDFs are recovered', async () => {
  const doc = await parse('helloworld-bad_malformed.pdf');
  assert.match(doc.blocks.map((b) => b.text).join(' '), /Hello, world!/);
  const doc2 = await parse('xref_command_missing_malformed.pdf');
  assert.ok(doc2.blocks.length > 0);
});

test('scanned PDFs without a text layer are read by OCR (tesseract)', async () => {
  const doc = await parse('tika_testOCR_scanned.pdf');
  assert.match(doc.blocks.map((b) => b.text).join(' '), /Happy New Year 2003/);
  assert.equal(doc.images.length, 0, 'the page scan is not a figure');
});

test('bytes that are not a PDF under a .pdf name are refused with 415', async () => {
  await assert.rejects(
    parseDocument({ data: Buffer.from('%PDF-1.7\nthis is not really a pdf'), filename: 'x.pdf' }),
    (err: unknown) => err instanceof ParseError && err.jobCode === 415 && err.errorCode === 'unreadable_document',
  );
});
