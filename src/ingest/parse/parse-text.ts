// Plain-text parser: decodes the bytes (BOM / UTF-8 / legacy code page, see decode-text.ts) and splits
// the text into paragraphs at blank lines. Runs of bullet or numbered lines become list blocks (with
// `-` / `N.` markers); everything else is a paragraph whose line breaks are kept. Plain text has no
// headings, pages or title: the title stays undefined so the filename is used.
import { decodeText } from './decode-text.ts';
import type { Block, ParsedDocument } from './types.ts';

const LIST_LINE = /^\s*(?:[-*+•◦▪‣–]|\d{1,3}[.)]|[a-z][.)])\s+\S/;

function toListMarkdown(lines: string[]): string {
  const indentOf = (line: string) => line.match(/^\s*/)?.[0].replace(/\t/g, '  ').length ?? 0;
  const base = Math.min(...lines.map(indentOf));
  return lines
    .map((line) => {
      const indent = indentOf(line) - base;
      const body = line.trim().replace(/^[•◦▪‣–*+]\s+/, '- ');
      return `${' '.repeat(Math.min(indent, 8) - (Math.min(indent, 8) % 2))}${body}`;
    })
    .join('\n');
}

/** Blocks of a plain text: paragraphs separated by blank lines, list runs as list blocks. */
export function textToBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const normalised = text.replace(/\r\n?/g, '\n').replace(/\u0000/g, '');
  for (const para of normalised.split(/\n[ \t\f\v]*\n/)) {
    const lines = para.split('\n').filter((l) => l.trim());
    if (!lines.length) continue;
    if (lines.every((l) => LIST_LINE.test(l))) {
      blocks.push({ kind: 'list', text: toListMarkdown(lines), page: 1 });
    } else {
      blocks.push({ kind: 'paragraph', text: lines.map((l) => l.trimEnd()).join('\n').trim(), page: 1 });
    }
  }
  return blocks;
}

/** Parse a .txt file. Never throws for content; an empty text yields no blocks (caller decides). */
export async function parseText(data: Buffer): Promise<ParsedDocument> {
  const { text } = decodeText(data);
  return { title: undefined, pages: 1, blocks: textToBlocks(text), images: [] };
}
