// PDF understanding on real files (../shared/data/docs/pdf): ruled tables come back as Markdown
// tables whose cells match the source, figures are extracted as PNG assets with their captions,
// scanned pages are OCR'd, and the counts that become image_count / table_count match the documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from '../src/ingest/parse/index.ts';
import { chunkDocument } from '../src/ingest/chunking/chunker.ts';
import { tablesOf } from '../src/ingest/assets/asset-store.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pdf = (name: string) => path.resolve(repoRoot, '../shared/data/docs/pdf', name);
const parse = (name: string) => parseDocument({ data: fs.readFileSync(pdf(name)), filename: name });
const PNG = '89504e47';

test('layout-parser-paper-with-table.pdf: the results table, cell for cell', async () => {
  const doc = await parse('layout-parser-paper-with-table.pdf');
  const tables = tablesOf(doc.blocks);
  assert.equal(tables.length, 1);
  assert.deepEqual(tables[0].rows, [
    ['Dataset', 'Base Model1', 'Large Model', 'Notes'],
    ['PubLayNet [38]', 'F / M', 'M', 'Layouts of modern scientific documents'],
    ['PRImA [3]', 'M', '-', 'Layouts of scanned modern magazines and scientific reports'],
    ['Newspaper [17]', 'F', '-', 'Layouts of scanned US newspapers from the 20th century'],
    ['TableBank [18]', 'F', 'F', 'Table region on modern scientific and business document'],
    ['HJDataset [31]', 'F / M', '-', 'Layouts of history Japanese documents'],
  ]);
  assert.match(tables[0].markdown, /^\| Dataset \| Base Model1 \| Large Model \| Notes \|\n\| --- \| --- \| --- \| --- \|\n\| PubLayNet \[38\] \| F \/ M \| M \|/);
  // The caption stays text before the table; the table's cells are not repeated as paragraphs.
  const idx = doc.blocks.findIndex((b) => b.kind === 'table');
  assert.match(doc.blocks[idx - 1].text, /^Table 1: Current layout detection models/);
  assert.ok(!doc.blocks.some((b) => b.kind === 'paragraph' && b.text.includes('Layouts of history Japanese documents')));
  // The code listing's shaded lines are not a table.
  const counts = chunkDocument(doc);
  assert.equal(counts.tableCount, 1);
  assert.equal(counts.imageCount, 0);
});

test('embedded-images-tables.pdf: a 7-column table and one figure with its caption', async () => {
  const doc = await parse('embedded-images-tables.pdf');
  const [table, ...more] = tablesOf(doc.blocks);
  assert.equal(more.length, 0);
  assert.deepEqual(table.rows[0], ['Inhibitor concentration (g)', 'bc (V/dec)', 'ba (V/dec)', 'Ecorr (V)', 'icorr (A/cm2)', 'Polarization resistance (Ω)', 'Corrosion rate (mm/year)']);
  assert.deepEqual(table.rows[1], ['0', '0.0335', '0.0409', '0.9393', '0.0003', '24.0910', '2.8163']);
  assert.deepEqual(table.rows.at(-1), ['10', '0.0382', '0.0086', '0.5356', '1.24E-05', '246.080', '0.0919']);
  assert.equal(doc.images.length, 1);
  assert.equal(doc.images[0].data.subarray(0, 4).toString('hex'), PNG);
  assert.match(doc.images[0].alt ?? '', /^Fig\. 4\. Anodic and cathodic polarization curve/);
  assert.ok(doc.blocks.some((b) => b.kind === 'image' && b.text === `[IMAGE: ${doc.images[0].name}]`));
});

test('picture_classification.pdf: two figures, one per page, captions as alt text', async () => {
  const doc = await parse('picture_classification.pdf');
  assert.deepEqual(doc.images.map((i) => [i.page, i.alt]), [
    [1, 'Figure 1: This is an example image.'],
    [2, 'Figure 2: This is an example image.'],
  ]);
  assert.equal(chunkDocument(doc).imageCount, 2);
  assert.equal(chunkDocument(doc).tableCount, 0);
});

test('pdfjs_wikipedia.pdf: the infobox is a two-column table', async () => {
  const doc = await parse('pdfjs_wikipedia.pdf');
  const [infobox] = tablesOf(doc.blocks);
  assert.ok(infobox.rows.some((r) => r[0] === 'Developer(s)' && r[1] === 'Mozilla'));
  assert.ok(infobox.rows.some((r) => r[0] === 'Type' && r[1] === 'PDF viewer'));
  assert.equal(doc.images.length, 3);
});

test('scanned PDFs are OCR\'d page by page', async () => {
  const a = await parse('ocr_test_scanned.pdf');
  assert.match(a.blocks.map((b) => b.text).join(' '), /Docling bundles PDF document conversion to JSON and Markdown/);
  const b = await parse('single_table_image_only.pdf');
  const text = b.blocks.map((x) => x.text).join(' ');
  assert.match(text, /Base 128/);
  assert.match(text, /64,058/);
  assert.equal(b.images.length, 0, 'page scans are never stored as figures');
});
