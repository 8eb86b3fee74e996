// CSV / TSV parser: the bytes are decoded like any text upload (BOM, UTF-16 with or without BOM,
// strict UTF-8, else the most plausible legacy code page — decode-text.ts), then papaparse reads the
// records (quoted fields with embedded delimiters and newlines; for CSV the delimiter is guessed among
// `,` `;` tab `|` from field-count consistency). The grid follows the spreadsheet rules of
// sheet-blocks.ts: one-cell caption rows become paragraphs, each region between empty lines a GFM table
// whose first row is the header (the chunker splits large tables between rows and repeats the header).
// One page; no title (the filename is used).
import Papa from 'papaparse';
import { decodeText } from './decode-text.ts';
import { MAX_SHEET_ROWS, gridToBlocks } from './sheet-blocks.ts';
import type { ParsedDocument } from './types.ts';

/** Rows of a delimited text; `delimiter` undefined -> guessed. Exposed for tests. */
export function readDelimited(text: string, delimiter?: string): { rows: string[][]; delimiter: string } {
  const result = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    delimiter: delimiter ?? '',
    delimitersToGuess: [',', ';', '\t', '|'],
    skipEmptyLines: false,
    preview: MAX_SHEET_ROWS,
  });
  return { rows: result.data.map((r) => r.map((c) => (c ?? '').replace(/\r\n?/g, '\n'))), delimiter: result.meta.delimiter };
}

/** Parse a .csv file (delimiter guessed). Never throws for content; an empty file yields no blocks. */
export async function parseCsv(data: Buffer): Promise<ParsedDocument> {
  const { rows } = readDelimited(decodeText(data).text);
  return { title: undefined, pages: 1, blocks: gridToBlocks(rows, 1), images: [] };
}

/** Parse a .tsv file (tab-delimited). */
export async function parseTsv(data: Buffer): Promise<ParsedDocument> {
  const { rows } = readDelimited(decodeText(data).text, '\t');
  return { title: undefined, pages: 1, blocks: gridToBlocks(rows, 1), images: [] };
}
