// Turns a parsed document into chunks and chunksets (DESIGN.md §5; rules also in docs/chunking.md).
//
// Rules:
// - Heading hierarchy: a heading of level L closes every open heading of level ≥ L; a chunk's
//   heading_path is the stack of open headings (outermost first). Heading text is never repeated in
//   chunk content (it lives in heading_path); a section with only a heading produces no chunk.
// - Section: the blocks between one heading and the next. Chunks never cross a section boundary, except
//   that a section's lead-in of fewer than LEAD_IN_TOKENS (32) tokens directly followed by a subsection
//   (a deeper heading) opens that subsection's first chunk instead of standing alone: a statement's column
//   header row ("(Millions) 2018 2017 2016") stays with the rows of its first section.
// - Chunk: whole blocks (paragraph groups, lists, tables, code, image references) joined by a blank
//   line, packed greedily up to `targetTokens` (default 300); a chunk still under MIN_TOKENS (100) may
//   take the next block while it stays within `maxTokens` (default 400), and a small last chunk of a
//   section is merged into the previous one under the same cap.
// - A block larger than `maxTokens` is split (split-block.ts) into parts of ≤ `targetTokens` at
//   row / item / line / sentence boundaries; a table's header is repeated on each part. A table row,
//   list item line or code line is never cut, so such a single unit may exceed `maxTokens`.
// - Chunkset: the contiguous chunks of one section, capped at `chunksetMaxTokens` (default 2000): when
//   the next chunk would push a chunkset past the cap, a new chunkset starts (same heading_path).
// - page_start / page_end: the smallest / largest page of the blocks in the chunk.
// - token_count: o200k_base tokens of `content` (src/analysis/token-count.ts).
import { countTokens } from '../../analysis/token-count.ts';
import type { Block, ParsedDocument } from '../parse/types.ts';
import { splitBlock } from './split-block.ts';

export interface ChunkOptions {
  /** Soft size: stop adding blocks to a chunk past this many tokens. Default 300. */
  targetTokens?: number;
  /** Hard size for packed chunks; blocks above it are split. Default 400. */
  maxTokens?: number;
  /** Token cap of one chunkset. Default 2000. */
  chunksetMaxTokens?: number;
}

export interface ChunkDraft {
  chunk_index: number;
  chunkset_index: number;
  heading_path: string[];
  content: string;
  page_start: number;
  page_end: number;
  token_count: number;
}

export interface ChunkedDocument {
  chunks: ChunkDraft[];
  chunksetCount: number;
  tableCount: number;
  imageCount: number;
}

/** Chunks smaller than this may borrow the next block (up to maxTokens) or merge into the previous chunk. */
const MIN_TOKENS = 100;

/**
 * A section's content below this many tokens, followed directly by a deeper heading, is carried into that
 * subsection (file header). A prior: a column header row or a one-line subtitle (≈ 5–20 tokens) is carried,
 * an introductory paragraph (typically 40+) keeps its own chunk.
 */
const LEAD_IN_TOKENS = 32;

interface Unit {
  text: string;
  tokens: number;
  page: number;
}

interface Group {
  units: Unit[];
  tokens: number;
}

function groupUnits(units: Unit[], target: number, max: number, min: number): Group[] {
  const groups: Group[] = [];
  let cur: Group = { units: [], tokens: 0 };
  for (const u of units) {
    const joined = cur.tokens + u.tokens + (cur.units.length ? 1 : 0);
    const fits = joined <= target || (cur.tokens < min && joined <= max);
    if (cur.units.length && !fits) {
      groups.push(cur);
      cur = { units: [], tokens: 0 };
    }
    cur.units.push(u);
    cur.tokens += u.tokens + (cur.units.length > 1 ? 1 : 0);
  }
  if (cur.units.length) groups.push(cur);
  const last = groups.at(-1);
  const prev = groups.at(-2);
  if (last && prev && last.tokens < min && prev.tokens + last.tokens + 1 <= max) {
    prev.units.push(...last.units);
    prev.tokens += last.tokens + 1;
    groups.pop();
  }
  return groups;
}

/**
 * Chunk a parsed document. Pure and synchronous (CPU only: token counting).
 * Options are clamped so that 1 ≤ targetTokens ≤ maxTokens. Returns chunks in document order with
 * consecutive chunk_index and chunkset_index values starting at 0.
 */
export function chunkDocument(doc: ParsedDocument, opts: ChunkOptions = {}): ChunkedDocument {
  const maxTokens = Math.max(1, Math.floor(opts.maxTokens ?? 400));
  const targetTokens = Math.max(1, Math.min(maxTokens, Math.floor(opts.targetTokens ?? 300)));
  const minTokens = Math.min(MIN_TOKENS, Math.floor(targetTokens / 3));
  const chunksetMax = Math.max(1, Math.floor(opts.chunksetMaxTokens ?? 2000));

  const chunks: ChunkDraft[] = [];
  let chunksetIndex = -1;
  const stack: Array<{ level: number; text: string }> = [];
  let units: Unit[] = [];

  const flushSection = () => {
    if (!units.length) return;
    const path = stack.map((h) => h.text);
    let setTokens = Infinity; // forces a new chunkset for the first chunk of each section
    for (const g of groupUnits(units, targetTokens, maxTokens, minTokens)) {
      const content = g.units.map((u) => u.text).join('\n\n');
      const tokens = g.units.length === 1 ? g.units[0].tokens : countTokens(content); // one unit: its text is the content
      if (setTokens + tokens > chunksetMax) {
        chunksetIndex++;
        setTokens = 0;
      }
      setTokens += tokens;
      chunks.push({
        chunk_index: chunks.length,
        chunkset_index: chunksetIndex,
        heading_path: [...path],
        content,
        page_start: Math.min(...g.units.map((u) => u.page)),
        page_end: Math.max(...g.units.map((u) => u.page)),
        token_count: tokens,
      });
    }
    units = [];
  };

  for (const block of doc.blocks) {
    if (block.kind === 'heading') {
      const level = block.level ?? 1;
      const child = stack.length > 0 && level > stack[stack.length - 1].level;
      const lead = units.reduce((n, u) => n + u.tokens, 0);
      if (!(child && units.length > 0 && lead < LEAD_IN_TOKENS)) flushSection();
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      stack.push({ level, text: block.text.trim() });
      continue;
    }
    if (!block.text.trim()) continue;
    const tokens = countTokens(block.text);
    if (tokens <= maxTokens) {
      units.push({ text: block.text, tokens, page: block.page });
      continue;
    }
    for (const text of splitBlock(block, targetTokens)) units.push({ text, tokens: countTokens(text), page: block.page });
  }
  flushSection();

  return {
    chunks,
    chunksetCount: chunksetIndex + 1,
    tableCount: doc.blocks.filter((b: Block) => b.kind === 'table').length,
    imageCount: imageCountOf(doc),
  };
}

/** Images of a document: its own count when the parser reported one, else its image assets or references. */
export function imageCountOf(doc: ParsedDocument): number {
  return doc.imageCount ?? Math.max(doc.images.length, doc.blocks.filter((b: Block) => b.kind === 'image').length);
}
