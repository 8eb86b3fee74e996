// Markdown -> Blocks, shared by the Markdown, HTML and DOCX parsers (the latter two go through
// Markdown first). `marked`'s lexer finds the block structure; each top-level token becomes one Block
// whose text is Markdown again: headings carry their level and plain text, lists keep their markers
// (`raw`), tables are re-emitted as normalised GFM tables, code is always fenced, raw HTML blocks are
// converted through html-to-markdown, and a paragraph made only of image references becomes image
// blocks (`[IMAGE: name]`).
import { marked, type Token, type Tokens } from 'marked';
import { htmlToMarkdown } from './html-to-markdown.ts';
import type { Block } from './types.ts';

const IMAGE_REF = /\[IMAGE: ([^\]\n]+)\]/g;
const MD_IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;

/** Basename of a Markdown image target, else its alt text, else "image". */
function mdImageName(alt: string, src: string): string {
  const path = src.split(/[?#]/)[0];
  const base = path.startsWith('data:') ? '' : path.slice(path.lastIndexOf('/') + 1);
  return (base || alt.trim() || 'image').replace(/[\]\n]/g, '_');
}

/** Replace Markdown image syntax with the `[IMAGE: name]` reference form used in contexts. */
function normaliseImages(text: string): string {
  return text.replace(MD_IMAGE, (_m, alt: string, src: string) => `[IMAGE: ${mdImageName(alt, src)}]`);
}

function escapeCell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/(?<!\\)\|/g, '\\|').trim();
}

/** A GFM table with one header row, a delimiter row and the body rows, all of equal width. */
export function gfmTable(header: string[], rows: string[][]): string {
  const width = Math.max(header.length, ...rows.map((r) => r.length), 1);
  const line = (r: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => escapeCell(r[i] ?? '')).join(' | ')} |`;
  return [line(header), `|${' --- |'.repeat(width)}`, ...rows.map(line)].join('\n');
}

function fence(code: string, lang: string): string {
  let marker = '```';
  while (code.includes(marker)) marker += '`';
  return `${marker}${lang}\n${code.replace(/\n+$/, '')}\n${marker}`;
}

/** Strip inline Markdown from heading text (emphasis, code ticks, links) for heading paths. */
function plainHeading(text: string): string {
  return normaliseImages(text)
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|\*|_|`|~~)(.+?)\1/g, '$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function paragraphBlocks(text: string, page: number): Block[] {
  const body = normaliseImages(text).trim();
  if (!body) return [];
  const withoutRefs = body.replace(IMAGE_REF, '').trim();
  if (!withoutRefs) {
    return [...body.matchAll(IMAGE_REF)].map((m) => ({ kind: 'image' as const, text: m[0], page, assetName: m[1] }));
  }
  return [{ kind: 'paragraph', text: body, page }];
}

function tokenBlocks(token: Token, page: number, depth: number): Block[] {
  switch (token.type) {
    case 'heading': {
      const t = token as Tokens.Heading;
      const text = plainHeading(t.text);
      return text ? [{ kind: 'heading', text, level: t.depth, page }] : [];
    }
    case 'paragraph':
    case 'text':
      return paragraphBlocks(token.raw, page);
    case 'blockquote':
      return paragraphBlocks(token.raw.trimEnd(), page);
    case 'list':
      return [{ kind: 'list', text: normaliseImages(token.raw.replace(/\s+$/, '')), page }];
    case 'table': {
      const t = token as Tokens.Table;
      const text = gfmTable(
        t.header.map((c) => normaliseImages(c.text)),
        t.rows.map((r) => r.map((c) => normaliseImages(c.text))),
      );
      return [{ kind: 'table', text, page }];
    }
    case 'code': {
      const t = token as Tokens.Code;
      return t.text.trim() ? [{ kind: 'code', text: fence(t.text, (t.lang ?? '').trim()), page }] : [];
    }
    case 'html': {
      if (depth > 0) return paragraphBlocks(token.raw.replace(/<[^>]*>/g, ' '), page);
      const converted = htmlToMarkdown(token.raw).markdown;
      return markdownToBlocks(converted, page, depth + 1);
    }
    default:
      // space, hr, def (link definitions) and anything unknown carry no passage text.
      return [];
  }
}

/**
 * Split Markdown into Blocks in document order, all on `page` (Markdown has no pages).
 * `depth` guards the single level of recursion used for embedded HTML blocks.
 */
export function markdownToBlocks(markdown: string, page = 1, depth = 0): Block[] {
  const tokens = marked.lexer(markdown.replace(/\r\n?/g, '\n'), { gfm: true });
  const blocks: Block[] = [];
  for (const token of tokens) blocks.push(...tokenBlocks(token, page, depth));
  return blocks;
}

/** First heading's text (preferring the shallowest level among the first few), for titles. */
export function firstHeading(blocks: Block[]): string | undefined {
  const headings = blocks.filter((b) => b.kind === 'heading').slice(0, 5);
  if (!headings.length) return undefined;
  const top = Math.min(...headings.map((h) => h.level ?? 6));
  return headings.find((h) => (h.level ?? 6) === top)?.text;
}
