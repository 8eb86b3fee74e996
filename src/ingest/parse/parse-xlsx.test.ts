// Real-file tests of the XLSX parser: every cell of stanley-cups.xlsx, as exceljs reads it from the
// file, appears in the same row and column of the sheet's GFM table; one page per sheet; charts as
// tables; display formatting of cell values; password-protected workbooks are refused as encrypted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { parserFor, tableCells } from './test-support.ts';
import { cellValueText } from './parse-xlsx.ts';

const dir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/xlsx');
const parse = parserFor(dir);

test('stanley-cups.xlsx: each sheet is a heading + a table whose cells equal the workbook cells', async () => {
  const doc = await parse('stanley-cups.xlsx');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(fs.readFileSync(path.join(dir, 'stanley-cups.xlsx')) as unknown as ArrayBuffer);
  assert.equal(doc.pages, wb.worksheets.length);
  assert.equal(doc.pages, 2);
  const headings = doc.blocks.filter((b) => b.kind === 'heading');
  assert.deepEqual(headings.map((h) => [h.text, h.level, h.page]), [['Stanley Cups', 1, 1], ['Stanley Cups Since 67', 1, 2]]);
  for (const [i, ws] of wb.worksheets.entries()) {
    const table = doc.blocks.find((b) => b.kind === 'table' && b.page === i + 1);
    assert.ok(table, `sheet ${ws.name} has a table`);
    const cells = tableCells(table.text);
    // Row 1 is the merged title (a caption above the table); rows 2.. are the table, columns A..C.
    const expected: string[][] = [];
    for (let r = 2; r <= ws.rowCount; r++) {
      const row: string[] = [];
      for (let c = 1; c <= 3; c++) {
        const v = ws.getCell(r, c).value;
        row.push(v === null || v === undefined ? '' : String(v));
      }
      expected.push(row);
    }
    assert.deepEqual(cells, expected);
  }
  assert.deepEqual(tableCells(doc.blocks.find((b) => b.kind === 'table')!.text)[3], ['Maple Leafs', 'TOR', '13']);
});

test('xlsx_03_chartsheet.xlsx: formula results, the chart as a table of its series, core title', async () => {
  const doc = await parse('xlsx_03_chartsheet.xlsx');
  assert.equal(doc.title, 'Wild Duck Observations');
  const [data, chart] = doc.blocks.filter((b) => b.kind === 'table');
  assert.deepEqual(tableCells(data.text)[1], ['2019', '120', '80', '200']); // D2 = B2+C2
  assert.ok(doc.blocks.some((b) => b.text === 'Chart: Wild Duck Observations by Year' && b.page === 2));
  assert.deepEqual(tableCells(chart.text)[0], ['Category', 'Freshwater Ducks', 'Saltwater Ducks']);
});

test('2023-half-year-analyses-by-segment.xlsx: caption rows are paragraphs, spacer rows do not split tables', async () => {
  const doc = await parse('2023-half-year-analyses-by-segment.xlsx');
  assert.equal(doc.pages, 5);
  const first = doc.blocks.filter((b) => b.page === 1);
  assert.equal(first[0].kind, 'heading');
  assert.equal(first[1].text, '3. Analyses by segment');
  const table = tableCells(first.find((b) => b.kind === 'table')!.text);
  assert.ok(table.some((r) => r[0] === 'Zone NA' && r[1] === '12553'), 'data rows below a blank spacer row stay in the table');
});

test('password_protected.xlsx is refused as encrypted (422)', async () => {
  await assert.rejects(parse('password_protected.xlsx'), (err: { jobCode: number; errorCode: string }) =>
    err.jobCode === 422 && err.errorCode === 'encrypted_document');
});

test('cellValueText shows values as a reader sees them', () => {
  assert.equal(cellValueText(0.1 + 0.2), '0.3');
  assert.equal(cellValueText(0.256, '0.0%'), '25.6%');
  assert.equal(cellValueText(3, '0.00'), '3.00');
  assert.equal(cellValueText(new Date(Date.UTC(2023, 5, 30))), '2023-06-30');
  assert.equal(cellValueText(new Date(Date.UTC(2023, 5, 30, 14, 5))), '2023-06-30 14:05');
  assert.equal(cellValueText(true), 'TRUE');
  assert.equal(cellValueText({ richText: [{ text: 'a' }, { text: 'b' }] }), 'ab');
  assert.equal(cellValueText({ formula: 'A1*2', result: 4 } as ExcelJS.CellFormulaValue), '4');
  assert.equal(cellValueText({ error: '#DIV/0!' } as ExcelJS.CellErrorValue), '#DIV/0!');
  assert.equal(cellValueText({ text: 'site', hyperlink: 'https://x.test' }), 'site');
});
