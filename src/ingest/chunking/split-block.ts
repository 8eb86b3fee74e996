// Splits one block that is too large for a chunk, only at boundaries that keep meaning intact:
// a table between rows (the header and delimiter rows repeated on every part), a list between
// top-level items (an item larger than the limit between its lines), a code block between lines (each
// part fenced again with the same fence and language), prose between sentences (a sentence larger than
// the limit between words, and text without spaces between characters). A single table row or code
// line larger than the limit is kept whole: it is never cut.
import { countTokens } from '../../analysis/token-count.ts';
import type { Block } from '../parse/types.ts';

/** Greedily packs pieces (joined by `sep`) into parts of at most `limit` tokens; `prefix` starts each part. */
function pack(pieces: string[], limit: number, sep: string, prefix = '', suffix = ''): string[] {
  const fixed = countTokens(prefix + suffix);
  const parts: string[] = [];
  let current: string[] = [];
  let tokens = fixed;
  for (const piece of pieces) {
    const t = countTokens(piece) + (current.length ? 1 : 0);
    if (current.length && tokens + t > limit) {
      parts.push(prefix + current.join(sep) + suffix);
      current = [];
      tokens = fixed;
    }
    current.push(piece);
    tokens += t;
  }
  if (current.length) parts.push(prefix + current.join(sep) + suffix);
  return parts;
}

function splitTable(text: string, limit: number): string[] {
  const lines = text.split('\n');
  if (lines.length < 3) return [text];
  const header = `${lines[0]}\n${lines[1]}\n`;
  return pack(lines.slice(2), limit, '\n', header);
}

const TOP_ITEM = /^(?:[-*+]|\d{1,9}[.)])[ \t]/;

function splitList(text: string, limit: number): string[] {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^[ \t]*/)![0].length));
  const items: string[] = [];
  for (const line of lines) {
    if (TOP_ITEM.test(line.slice(indent)) || !items.length) items.push(line);
    else items[items.length - 1] += `\n${line}`;
  }
  const pieces = items.flatMap((item) =>
    countTokens(item) > limit ? pack(item.split('\n'), limit, '\n') : [item.replace(/\n+$/, '')],
  );
  return pack(pieces, limit, '\n');
}

function splitCode(text: string, limit: number): string[] {
  const lines = text.split('\n');
  const open = lines[0];
  const fenceMatch = /^(`{3,}|~{3,})/.exec(open);
  if (!fenceMatch || lines.length < 3) return pack(lines, limit, '\n');
  const close = lines.at(-1)!.trim().startsWith(fenceMatch[1][0]) ? lines.at(-1)! : fenceMatch[1];
  const body = lines.slice(1, lines.at(-1) === close ? -1 : undefined);
  return pack(body, limit, '\n', `${open}\n`, `\n${close}`);
}

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/** Cut a string that has no usable boundary into pieces of about `limit` tokens (by characters). */
function hardSplit(text: string, limit: number): string[] {
  const words = text.split(/(?<=\s)/);
  if (words.length > 1) return pack(words, limit, '').map((p) => p.trim());
  const perToken = Math.max(1, Math.floor(text.length / Math.max(1, countTokens(text))));
  const size = Math.max(1, perToken * limit);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function splitProse(text: string, limit: number): string[] {
  const sentences: string[] = [];
  // Intl.Segmenter is superlinear on very long inputs (DESIGN.md §4): feed it ~2k-character pieces
  // cut at the last line break or space after the first 200 characters. The break is looked for inside
  // the piece only: a search from its end back through the whole text made text without spaces quadratic
  // (8 MB of one "word": minutes in the parse child).
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + 2000);
    if (end < text.length) {
      const from = start + 201;
      const piece = text.slice(from, end + 1);
      const cut = Math.max(piece.lastIndexOf('\n'), piece.lastIndexOf(' '));
      if (cut >= 0) end = from + cut + 1;
    }
    for (const s of sentenceSegmenter.segment(text.slice(start, end))) if (s.segment.trim()) sentences.push(s.segment);
    start = end;
  }
  const pieces = sentences.flatMap((s) => (countTokens(s) > limit ? hardSplit(s, limit) : [s]));
  return pack(pieces, limit, '').map((p) => p.trim()).filter(Boolean);
}

/**
 * Split `block` into Markdown parts of at most `limit` tokens each (except an indivisible row or line).
 * Returns `[block.text]` when the block already fits.
 */
export function splitBlock(block: Block, limit: number): string[] {
  if (countTokens(block.text) <= limit) return [block.text];
  switch (block.kind) {
    case 'table':
      return splitTable(block.text, limit);
    case 'list':
      return splitList(block.text, limit);
    case 'code':
      return splitCode(block.text, limit);
    default:
      return splitProse(block.text, limit);
  }
}
