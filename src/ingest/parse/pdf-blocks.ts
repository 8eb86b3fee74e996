// Typography half of the PDF parser: turns reading-ordered lines of all pages into Blocks. Running
// headers/footers (same text, digits ignored, near the same y on many pages) and bare page numbers are
// dropped; the body font size is the character-weighted median line size; lines clearly larger than
// it (≥ 1.18×) are headings, levelled by distinct size (largest = 1), short body-size lines
// numbered like "3.1 Title" are headings one level per number below them, and short bold body-size titles
// standing alone on their row (boldHeading: statement titles and sections of filings) are headings below
// every size level, where bold is emphasis rather than the body's weight; paragraphs break at column/band
// changes, size changes, vertical gaps > 1.6× the font size, first-line indents and short
// sentence-final lines; bullet/number-led lines form list blocks; hyphenated line ends are re-joined.
// Lines that carry a ready block (tables, figure references) are emitted as that block in place.
import type { Line } from './pdf-layout.ts';
import type { Block } from './types.ts';

// Bullets include private-use glyphs (Wingdings/Symbol bullets extracted without a Unicode mapping).
const BULLET = /^([•●○◦▪■□➢►▸‣⁃–\-\uf0a7\uf0b7\uf06e\uf0d8\uf0fc\ue000-\uf8ff])\s*(?=\S)/;
const NUMBERED = /^(\(?\d{1,3}[.)]|\(?[a-z][.)]|\([ivx]{1,4}\))\s+/;
const PAGE_NUMBER = /^((page\s+)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|\/)\s*\d{1,4})?|[ivxlc]{1,7})$/i;
const NUMBERED_HEADING = /^(\d{1,2}(?:\.\d{1,2})+)\.?\s+\p{Lu}[^.!?;,:]{0,70}$/u;
const CJK = /[\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;

/** Character-weighted median of line font sizes. */
export function bodyFontSize(lines: Line[]): number {
  const sized = lines.filter((l) => !l.block).map((l) => ({ size: l.size, n: l.text.length })).sort((a, b) => a.size - b.size);
  const total = sized.reduce((s, x) => s + x.n, 0);
  let acc = 0;
  for (const x of sized) {
    acc += x.n;
    if (acc >= total / 2) return x.size;
  }
  return sized.at(-1)?.size ?? 10;
}

/** Drop running headers/footers and bare page numbers in the top/bottom 12% of each page. */
export function dropPageFurniture(lines: Line[], pageHeights: Map<number, number>, pageCount: number): Line[] {
  const inMargin = (l: Line) => {
    const h = pageHeights.get(l.page) ?? 792;
    return l.y > h * 0.88 || l.y < h * 0.12;
  };
  const keyOf = (l: Line) => `${Math.round(l.y / 6)}|${l.text.toLowerCase().replace(/\d+/g, '#')}`;
  const pagesByKey = new Map<string, Set<number>>();
  for (const l of lines) {
    if (!inMargin(l)) continue;
    const k = keyOf(l);
    if (!pagesByKey.has(k)) pagesByKey.set(k, new Set());
    pagesByKey.get(k)!.add(l.page);
  }
  const repeatedMin = 3;
  return lines.filter((l) => {
    if (l.block) return true;
    if (!/[\p{L}\p{N}]/u.test(l.text)) return false; // pseudo-graphics, stray symbols
    if (!inMargin(l)) return true;
    if (PAGE_NUMBER.test(l.text)) return false;
    return pageCount < 3 || (pagesByKey.get(keyOf(l))?.size ?? 0) < repeatedMin;
  });
}

/** Append a line's text to a paragraph, re-joining words hyphenated across the line break. */
function appendLine(text: string, next: string): string {
  if (!text) return next;
  if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(next)) return text.slice(0, -1) + next;
  if (/\p{L}-$/u.test(text) && /^\p{Lu}/u.test(next)) return text + next; // "Trace-" + "Monkey
  if (CJK.test(text.slice(-1)) && CJK.test(next[0] ?? '')) return text + next;
  return `${text} ${next}`;
}

interface Draft {
  kind: 'paragraph' | 'heading' | 'list';
  /** Level for numbered body-size headings ("3.1 Traces"); size-based headings use the size map. */
  level?: number;
  page: number;
  size: number;
  items: string[];
  last: Line;
  maxX1: number;
  /** A bold body-size heading (boldHeading): 'top' when it opens its page, else 'inner'. */
  bold?: 'top' | 'inner';
}

/** Lines at least this much larger than the body size are heading candidates. */
const HEADING_RATIO = 1.18;

/**
 * Bold body-size headings are read only where bold is emphasis, not the body's own weight: in documents
 * whose bold body-size characters are under this share of all body-size characters. A prior (the 10-K
 * filings of ../shared/data/qa/financebench set 2–9 % of their body-size text in bold).
 */
const BOLD_SHARE_MAX = 0.2;

/**
 * A bold body-size line that reads as a title: it stands alone on its row (no figures beside it, so not a
 * table row label with its values), is short (≤ 80 characters, ≤ 10 words), starts with a capital, holds no
 * figure of three or more digits ("2,853", "2018": column headers and totals) and does not end as a label or
 * a sentence does (":", ";", ",", "."). Statement titles of financial filings ("Consolidated Statement of
 * Cash Flows") and their sections ("Cash Flows from Investing Activities", "Liabilities") are set this way,
 * with no size change, so without this rule every chunk of a 10-K had only the company name as its heading.
 */
export function boldHeading(line: Line, body: number): boolean {
  if (!line.bold || !line.alone || Math.abs(line.size - body) > 0.75) return false;
  const t = line.text.trim();
  if (t.length > 80 || t.split(/\s+/).length > 10 || !/\p{L}{2}/u.test(t)) return false;
  const firstLetter = /\p{L}/u.exec(t)?.[0] ?? '';
  if (firstLetter.toUpperCase() !== firstLetter || firstLetter.toLowerCase() === firstLetter) return false;
  return !/[:;,.]$/.test(t) && !/\d{3}|\d,\d/.test(t);
}

/** Share of body-size characters set in bold (lines marked bold; unknown counts as not bold). */
function boldShare(lines: Line[], body: number): number {
  let all = 0;
  let bold = 0;
  for (const l of lines) {
    if (l.block || Math.abs(l.size - body) > 0.75) continue;
    all += l.text.length;
    if (l.bold) bold += l.text.length;
  }
  return all > 0 ? bold / all : 0;
}

/**
 * Heading level per heading font size (sizes within 0.6 pt share a level), largest = 1. Only sizes
 * that recur (≥ 2 lines) past page 1 define levels — a heading style is reused, while cover pages and
 * chapter-number ornaments use one-off sizes; any other size takes the level of the nearest defining
 * size at or above it, or level 1 when it is larger than all of them.
 */
function headingLevels(lines: Line[], body: number): Map<number, number> {
  const heads = lines.filter((l) => !l.block && l.size >= body * HEADING_RATIO && l.text.length <= 200);
  const later = heads.some((l) => l.page > 1) ? heads.filter((l) => l.page > 1) : heads;
  const counts = new Map<number, number>();
  for (const l of later) counts.set(l.size, (counts.get(l.size) ?? 0) + 1);
  const recurring = [...counts].filter(([, n]) => n >= 2).map(([size]) => size);
  const sizes = (recurring.length ? recurring : [...counts.keys()]).sort((a, b) => b - a);
  const ranked: Array<[number, number]> = [];
  let level = 0;
  let prev = Infinity;
  for (const size of sizes) {
    if (prev - size > 0.6) level++;
    ranked.push([size, Math.min(level, 6)]);
    prev = size;
  }
  const levels = new Map<number, number>(ranked);
  for (const l of heads) {
    if (levels.has(l.size)) continue;
    const above = ranked.filter(([size]) => size >= l.size - 0.6).at(-1);
    levels.set(l.size, above ? above[1] : 1);
  }
  return levels;
}

function finish(d: Draft, levels: Map<number, number>, boldLevels: { top: number; inner: number }): Block | null {
  if (d.kind === 'list') {
    return { kind: 'list', text: d.items.map((t) => (NUMBERED.test(t) ? t : `- ${t}`)).join('\n'), page: d.page };
  }
  const text = d.items[0].trim();
  if (!text) return null;
  if (d.kind === 'heading') {
    const words = text.split(/\s+/).length;
    const commas = (text.match(/,/g) ?? []).length;
    if (words <= 25 && commas < 3 && /\p{L}/u.test(text) && !sentenceFragment(text)) {
      const level = d.bold ? boldLevels[d.bold] : d.level ?? levels.get(d.size) ?? 1;
      return { kind: 'heading', text, level, page: d.page };
    }
  }
  return { kind: 'paragraph', text, page: d.page };
}

/**
 * Text that reads as the middle or end of a sentence, not as a title: it opens with a lower-case letter
 * ("quarter; and", "current 90-day lockup agreement. …") or ends as a clause does (";", ",", "and", "or").
 * Such lines are large only because their paragraph's type is (the highlights of an earnings release set
 * in a size above the tables' body size); as headings they left the content and reached every chunk's
 * heading path ("## quarter, an increase of 10% due to …" in MGM's release). Scripts without case are not
 * affected by the first test.
 */
export function sentenceFragment(text: string): boolean {
  return /^\p{Ll}/u.test(text) || /(?:[;,]|\s(?:and|or))$/u.test(text);
}

/** Blocks from reading-ordered lines of the whole document (see the header for the rules). */
export function linesToBlocks(lines: Line[]): Block[] {
  const body = bodyFontSize(lines);
  const levels = headingLevels(lines, body);
  const blocks: Block[] = [];
  let draft: Draft | null = null;
  // Bold body-size headings sit below every size-based level: a page's opening one (a statement's title)
  // one level below the deepest, the others (its sections) two.
  const deepest = Math.max(0, ...levels.values());
  const boldLevels = { top: Math.min(6, deepest + 1), inner: Math.min(6, deepest + 2) };
  const boldOk = boldShare(lines, body) < BOLD_SHARE_MAX;
  let prevPage = -1;
  const flush = () => {
    if (draft) {
      const b = finish(draft, levels, boldLevels);
      if (b) blocks.push(b);
    }
    draft = null;
  };
  // Body-size numbered headings ("3.1 Traces", often bold) sit one level per number below the
  // deepest size-based heading level.
  const numberedLevel = (line: Line): number | undefined => {
    const m = NUMBERED_HEADING.exec(line.text);
    if (!m || Math.abs(line.size - body) > 0.75 || line.text.split(/\s+/).length > 10) return undefined;
    return Math.min(6, Math.max(1, deepest) + m[1].split('.').filter(Boolean).length - 1);
  };
  for (const line of lines) {
    if (line.block) {
      flush();
      blocks.push(line.block);
      continue;
    }
    const pageTop = line.page !== prevPage;
    prevPage = line.page;
    const numLevel = numberedLevel(line);
    const bold = numLevel === undefined && boldOk && boldHeading(line, body);
    const bullet = BULLET.exec(line.text);
    const d = draft as Draft | null;
    // A large line that carries on a list item of its own size, whose last line did not end a sentence, is
    // the item's next line, not a heading (an earnings release's highlights are bulleted in a size above
    // the tables' body size).
    const carriesItem = d?.kind === 'list' && !bullet && !NUMBERED.test(line.text) && line.page === d.last.page &&
      !/[.!?:;]["')\]]?$/.test(d.last.text.trim()) &&
      line.column === d.last.column && Math.abs(line.size - d.last.size) <= 0.75 && d.last.y - line.y <= Math.max(line.size, d.last.size) * 1.6;
    const isHeading = !carriesItem && ((line.size >= body * HEADING_RATIO && line.text.length <= 200) || numLevel !== undefined || bold);
    const numbered = !bullet && NUMBERED.test(line.text) && !isHeading;
    let newBlock = !d;
    if (d) {
      const prev = d.last;
      const gap = prev.y - line.y;
      const em = Math.max(prev.size, line.size);
      newBlock =
        d.level !== undefined || numLevel !== undefined ||
        line.page !== prev.page || line.column !== prev.column || line.band !== prev.band ||
        (d.kind === 'heading') !== isHeading || (d.kind === 'heading' && !d.bold !== !bold) || Math.abs(line.size - prev.size) > 0.75 ||
        gap > em * 1.6 || gap < -em * 0.5 ||
        (d.kind !== 'list' && !isHeading && line.x0 > prev.x0 + em * 0.8 && line.x0 - prev.x0 < em * 4) ||
        (d.kind === 'paragraph' && /[.!?:]["')\]]?$/.test(prev.text) && prev.x1 < d.maxX1 - em * 2);
      if ((bullet || numbered) && d.kind === 'list') {
        // The next item of a list: items are often spaced wider than lines, so allow a larger gap.
        newBlock = line.page !== prev.page || line.column !== prev.column || line.band !== prev.band ||
          gap > em * 2.8 || gap < -em * 0.5;
      } else if (bullet || numbered) newBlock = true;
    }
    if (newBlock) {
      flush();
      draft = {
        kind: bullet || numbered ? 'list' : isHeading ? 'heading' : 'paragraph',
        level: numLevel,
        ...(bold ? { bold: pageTop ? ('top' as const) : ('inner' as const) } : {}),
        page: line.page, size: line.size, items: [''], last: line, maxX1: line.x1,
      };
    }
    const cur = draft as unknown as Draft;
    if (cur.kind === 'list' && (bullet || numbered) && cur.items.at(-1)) cur.items.push('');
    const text = bullet ? line.text.slice(bullet[0].length) : line.text;
    cur.items[cur.items.length - 1] = appendLine(cur.items[cur.items.length - 1], text);
    cur.last = line;
    cur.maxX1 = Math.max(cur.maxX1, line.x1);
  }
  flush();
  return blocks;
}
