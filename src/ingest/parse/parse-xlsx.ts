// XLSX parser: exceljs reads the workbook (shared strings, rich text, formulas' cached results, dates,
// merged ranges); every worksheet becomes one page: a level-1 heading with the sheet name, then its
// grid as caption paragraphs and GFM tables (sheet-blocks.ts: the first row of a table is its header).
// Charts drawn on a sheet follow it as "Chart: title" + a table of their cached series values
// (ooxml-parts.ts). Cell text is what a reader sees: formula results, TRUE/FALSE, dates as ISO dates,
// percentages and fixed-decimal formats applied, other numbers without binary noise. The values of a
// merged range appear once, in its top-left cell. Title: docProps dc:title, else the filename.
import ExcelJS from 'exceljs';
import { chartBlocks, drawingCharts, readRels } from './ooxml-parts.ts';
import { MAX_SHEET_ROWS, formatNumber, sheetToBlocks } from './sheet-blocks.ts';
import type { Block, ParsedDocument } from './types.ts';
import { ParseError } from './types.ts';
import { attr, descendants, openZip, readXml, relAttr } from './xml-dom.ts';

/** `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` or `HH:MM:SS` for a date cell (exceljs yields UTC dates). */
function formatDate(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  const date = iso.slice(0, 10);
  const time = iso.slice(11, 19);
  if (date === '1899-12-30') return time; // a time-of-day cell (serial < 1)
  if (time === '00:00:00') return date;
  return `${date} ${time.endsWith(':00') ? time.slice(0, 5) : time}`;
}

/** A number as its format shows it: percent and fixed decimals honoured, else plain. */
function formatWithNumFmt(n: number, numFmt: string | undefined): string {
  const fmt = (numFmt ?? '').split(';')[0].replace(/"[^"]*"|\[[^\]]*\]/g, '');
  const decimals = /0\.(0+)/.exec(fmt)?.[1].length;
  if (fmt.includes('%')) {
    const pct = n * 100;
    return `${decimals !== undefined ? pct.toFixed(decimals) : formatNumber(pct)}%`;
  }
  if (decimals !== undefined && decimals <= 10) return n.toFixed(decimals);
  return formatNumber(n);
}

/**
 * Display text of one exceljs cell value.
 * @param numFmt the cell's number format (exceljs `cell.numFmt`)
 */
export function cellValueText(value: ExcelJS.CellValue, numFmt?: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatWithNumFmt(value, numFmt);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatDate(value);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('hyperlink' in value) {
    const text = (value as ExcelJS.CellHyperlinkValue).text as unknown;
    return typeof text === 'string' ? text : cellValueText(text as ExcelJS.CellValue, numFmt) || value.hyperlink;
  }
  if ('formula' in value || 'sharedFormula' in value) {
    return cellValueText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue, numFmt);
  }
  if ('error' in value) return String(value.error);
  return '';
}

/** The grid of one worksheet as display strings (row-major, 0-based), capped at MAX_SHEET_ROWS rows. */
export function worksheetGrid(ws: ExcelJS.Worksheet): string[][] {
  const rows: string[][] = [];
  ws.eachRow({ includeEmpty: true }, (row, rowNumber) => {
    if (rowNumber > MAX_SHEET_ROWS) return;
    const cells: string[] = [];
    row.eachCell({ includeEmpty: false }, (cell, col) => {
      if (cell.isMerged && cell.master.address !== cell.address) return;
      cells[col - 1] = cellValueText(cell.value, cell.numFmt).replace(/\r\n?/g, '\n');
    });
    rows[rowNumber - 1] = Array.from(cells, (c) => c ?? '');
  });
  return Array.from(rows, (r) => r ?? []);
}

/** Sheet name -> worksheet part path, from xl/workbook.xml and its relationships. */
async function sheetParts(data: Buffer): Promise<{ zip: Awaited<ReturnType<typeof openZip>>; parts: Map<string, string> }> {
  const zip = await openZip(data, 'XLSX');
  const rels = await readRels(zip, 'xl/workbook.xml');
  const parts = new Map<string, string>();
  for (const sheet of descendants(await readXml(zip, 'xl/workbook.xml'), 'sheet')) {
    const rel = rels.get(relAttr(sheet, 'id') ?? '');
    const name = attr(sheet, 'name');
    if (rel && name) parts.set(name, rel.target);
  }
  return { zip, parts };
}

/** Parse an .xlsx workbook. Throws ParseError 415 `unreadable_document` when exceljs cannot read it. */
export async function parseXlsx(data: Buffer): Promise<ParsedDocument> {
  const { zip, parts } = await sheetParts(data);
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(data as unknown as ArrayBuffer);
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `The XLSX workbook could not be read: ${(err as Error).message}`);
  }
  const blocks: Block[] = [];
  const sheets = wb.worksheets;
  for (let i = 0; i < sheets.length; i++) {
    const ws = sheets[i];
    const page = i + 1;
    const sheetBlocks = sheetToBlocks(ws.name, worksheetGrid(ws), page);
    const part = parts.get(ws.name);
    const charts: Block[] = [];
    for (const chartPath of part ? await drawingCharts(zip, part) : []) charts.push(...(await chartBlocks(zip, chartPath, page)));
    if (charts.length && !sheetBlocks.length) sheetBlocks.push({ kind: 'heading', text: ws.name, level: 1, page });
    blocks.push(...sheetBlocks, ...charts);
  }
  const title = wb.title?.replace(/\s+/g, ' ').trim() || undefined;
  return { title, pages: Math.max(1, sheets.length), blocks, images: [] };
}
