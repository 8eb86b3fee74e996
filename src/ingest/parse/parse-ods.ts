// ODS parser (OpenDocument spreadsheet): one page per table:table (sheet) of content.xml, each a
// level-1 heading with the sheet name followed by caption paragraphs and GFM tables (sheet-blocks.ts,
// the same grid rules as XLSX). Cell text is the cell's displayed text (its text:p paragraphs, which
// ODF stores already formatted); repeated rows/columns are expanded up to a cap, so the million empty
// rows a sheet may declare cost nothing. Title: meta.xml dc:title, else the filename.
import { tableRows } from './odf-blocks.ts';
import { openOdf } from './odf-package.ts';
import { MAX_SHEET_ROWS, sheetToBlocks } from './sheet-blocks.ts';
import type { Block, ParsedDocument } from './types.ts';
import { attr, children, descendants, textOf } from './xml-dom.ts';

/** Parse an .ods file. Throws ParseError 422 `encrypted_document`, 415 `unreadable_document`. */
export async function parseOds(data: Buffer): Promise<ParsedDocument> {
  const pkg = await openOdf(data, 'spreadsheet', 'ODS');
  const sheets = children(pkg.body, 'table');
  const blocks: Block[] = [];
  sheets.forEach((sheet, i) => {
    const cellText = (cell: Parameters<typeof textOf>[0]) =>
      descendants(cell, 'p').map((p) => textOf(p).trim()).filter(Boolean).join('\n');
    const rows = tableRows(sheet, pkg.ctx, cellText).slice(0, MAX_SHEET_ROWS);
    blocks.push(...sheetToBlocks(attr(sheet, 'name') ?? `Sheet ${i + 1}`, rows, i + 1));
  });
  return { title: pkg.title, pages: Math.max(1, sheets.length), blocks, images: [] };
}
