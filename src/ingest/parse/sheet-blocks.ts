// Grid -> blocks, shared by the spreadsheet-like parsers (XLSX, ODS, CSV/TSV). A sheet is a heading
// with the sheet's name followed by its content: the grid is cut into regions at fully empty rows; a
// region that is a single row with one filled cell is a caption paragraph (a title above a table),
// every other region is one GFM table whose first row is the header (one-cell rows leading a wider
// region are captions too). Columns empty in a whole region are dropped. Large tables stay one block: the chunker splits them between rows and repeats the header.
import { gfmTable } from './markdown-blocks.ts';
import type { Block } from './types.ts';

/** Cells beyond this many rows of one sheet are not read (a guard against million-row sheets). */
export const MAX_SHEET_ROWS = 100_000;

const filled = (v: string | undefined) => v !== undefined && v.trim() !== '';

/** Split rows into regions separated by fully empty rows. */
function regions(rows: string[][]): string[][][] {
  const out: string[][][] = [];
  let cur: string[][] = [];
  for (const row of rows) {
    if (row.some(filled)) cur.push(row);
    else if (cur.length) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Keep only the columns that hold a value in at least one row of the region. */
function compactColumns(region: string[][]): string[][] {
  const width = Math.max(...region.map((r) => r.length));
  const keep: number[] = [];
  for (let c = 0; c < width; c++) if (region.some((r) => filled(r[c]))) keep.push(c);
  return region.map((r) => keep.map((c) => (r[c] ?? '').trim()));
}

const NUMERIC = /^[-+(]?[$€£¥]?\s?\d[\d\s.,']*%?\)?$|^[—–-]$/;

/** A row that reads as data rather than as a header: most of its filled cells are numbers. */
function numericRow(row: string[]): boolean {
  const cells = row.filter(filled);
  return cells.length >= 2 && cells.filter((c) => NUMERIC.test(c.trim())).length * 2 >= cells.length;
}

const wide = (r: string[]) => r.filter(filled).length >= 2;

/**
 * Regions of the grid; a region that starts with a numeric row continues the table above it (blank
 * spacer rows inside financial tables), so it is merged into the previous wide region.
 */
function tableRegions(rows: string[][]): string[][][] {
  const out: string[][][] = [];
  for (const region of regions(rows)) {
    const prev = out.at(-1);
    if (prev && prev.some(wide) && numericRow(region[0])) prev.push(...region);
    else out.push(region);
  }
  return out;
}

/**
 * Blocks for one grid of cell texts (row-major, already formatted as display strings).
 * @param rows   cell texts; rows may have different lengths
 * @param page   page number for every block
 */
export function gridToBlocks(rows: string[][], page: number): Block[] {
  const blocks: Block[] = [];
  for (const raw of tableRegions(rows)) {
    if (!raw.some(wide)) {
      // No row with two values: captions / notes, one line per row.
      blocks.push({ kind: 'paragraph', text: raw.map((r) => r.find(filled)!.trim()).join('\n'), page });
      continue;
    }
    // Leading one-cell rows above a wider grid are captions ("Stanley Cups" over its table).
    let start = 0;
    while (!wide(raw[start])) {
      blocks.push({ kind: 'paragraph', text: raw[start].find(filled)!.trim(), page });
      start++;
    }
    const [header, ...body] = compactColumns(raw.slice(start));
    blocks.push({ kind: 'table', text: gfmTable(header, body), page });
  }
  return blocks;
}

/** A sheet: a level-1 heading with its name, then the grid's blocks (empty sheets yield nothing). */
export function sheetToBlocks(name: string, rows: string[][], page: number): Block[] {
  const heading = name.trim() || `Sheet ${page}`;
  // A caption that only repeats the sheet name adds nothing.
  const content = gridToBlocks(rows, page).filter((b, i) => !(i === 0 && b.kind === 'paragraph' && b.text === heading));
  if (!content.length) return [];
  return [{ kind: 'heading', text: heading, level: 1, page }, ...content];
}

/**
 * Display text of a number: integers as is, other values rounded to 15 significant digits so binary
 * floating-point noise (0.30000000000000004) does not reach the index.
 */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(15)));
}
