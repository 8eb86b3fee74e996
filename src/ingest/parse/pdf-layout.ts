// Geometry half of the PDF parser: turns the positioned text runs of one page (pdfjs text items) into
// text lines in reading order. Runs are grouped into lines by baseline, lines are cut into segments at
// wide horizontal gaps (column gutters, table cells), rotated runs (margin stamps) are dropped when they
// are a minority, and a page whose segments leave a clear vertical gutter near the middle is read as two
// columns: full-width segments (titles, wide figures) separate bands, and inside each band the left
// column is read before the right one. Units are PDF points, y grows upwards (PDF user space).
// Tables and figures found elsewhere (pdf-tables.ts, pdf-images.ts) enter as lines carrying a ready
// block, placed at their top edge, so they take their place in the same reading order.
import type { Block } from './types.ts';

/** One positioned text run (a pdfjs TextItem reduced to what layout needs). */
export interface TextRun {
  str: string;
  x: number;
  /** Baseline y. */
  y: number;
  width: number;
  /** Font size in points (vertical scale of the text matrix). */
  size: number;
  hasEOL: boolean;
  rotated: boolean;
  /** The run's font is a bold weight (its name says Bold, Black, Heavy, Semibold or Demi); absent = unknown. */
  bold?: boolean;
}

/** A line segment of text on one page. */
export interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  /** Dominant font size (by characters). */
  size: number;
  page: number;
  /** 0 = single column / full width, 1 = left column, 2 = right column; band = vertical region id. */
  column: number;
  band: number;
  /** A ready-made block (table, image reference) standing at this position; text is then ''. */
  block?: Block;
  /** Every run with visible text is bold (pdf-blocks.ts: bold body-size headings). */
  bold?: boolean;
  /** No other text (a table row's figures) stands beside it: no other segment's baseline within 0.8 em. */
  alone?: boolean;
}

const SPACE_BEFORE = /^[\s,.;:!?)\]}%]/;

/** Join runs of one line left to right, inserting a space where the gap between runs is visible. */
export function joinRuns(runs: TextRun[]): string {
  let text = '';
  let prevEnd = -Infinity;
  for (const r of runs) {
    const gap = r.x - prevEnd;
    if (text && gap > r.size * 0.18 && !/\s$/.test(text) && !/^\s/.test(r.str) && !SPACE_BEFORE.test(r.str)) {
      text += ' ';
    }
    text += r.str;
    prevEnd = Math.max(prevEnd, r.x + r.width);
  }
  return composeAccents(text.replace(/\s+/g, ' ').trim());
}

// TeX-made PDFs draw accents as separate spacing glyphs before the letter ("na¨ıve"): recompose them.
const SPACING_ACCENTS: Record<string, string> = {
  '¨': '\u0308', '´': '\u0301', '`': '\u0300', 'ˆ': '\u0302', '˜': '\u0303', 'ˇ': '\u030c', '¸': '\u0327', '˚': '\u030a',
};

function composeAccents(text: string): string {
  if (!/[¨´`ˆ˜ˇ¸˚]/.test(text)) return text;
  return text
    .replace(/([¨´`ˆ˜ˇ¸˚]) ?([a-zA-Zı])/g, (_m, acc: string, letter: string) =>
      (letter === 'ı' ? 'i' : letter) + SPACING_ACCENTS[acc])
    .normalize('NFC');
}

function dominantSize(runs: TextRun[]): number {
  const bySize = new Map<number, number>();
  for (const r of runs) {
    const key = Math.round(r.size * 2) / 2;
    bySize.set(key, (bySize.get(key) ?? 0) + r.str.length);
  }
  let best = 0;
  let bestCount = -1;
  for (const [size, count] of bySize) {
    if (count > bestCount || (count === bestCount && size > best)) {
      best = size;
      bestCount = count;
    }
  }
  return best;
}

/** Group runs into baseline lines, then cut each line at gaps wider than ~2 em into segments. */
function buildSegments(runs: TextRun[], page: number): Line[] {
  const rows: TextRun[][] = [];
  let current: TextRun[] = [];
  let currentY = NaN;
  let currentSize = 0;
  let lastX = -Infinity;
  for (const r of runs) {
    const tolerance = Math.max(currentSize, r.size) * 0.45;
    const sameLine = current.length > 0 && Math.abs(r.y - currentY) <= tolerance && r.x >= lastX - r.size * 0.5;
    if (!sameLine && current.length) {
      rows.push(current);
      current = [];
    }
    if (!current.length || r.size > currentSize) {
      currentY = r.y;
      currentSize = r.size;
    }
    current.push(r);
    lastX = r.x + r.width;
  }
  if (current.length) rows.push(current);

  const segments: Line[] = [];
  for (const row of rows) {
    row.sort((a, b) => a.x - b.x);
    let seg: TextRun[] = [];
    let segEnd = -Infinity;
    const flush = () => {
      const text = joinRuns(seg);
      if (text) {
        const main = seg.reduce((a, b) => (b.size > a.size ? b : a));
        const visible = seg.filter((r) => r.str.trim());
        segments.push({
          text, x0: seg[0].x, x1: segEnd, y: main.y, size: dominantSize(seg), page, column: 0, band: 0,
          bold: visible.length > 0 && visible.every((r) => r.bold === true), alone: false,
        });
      }
      seg = [];
    };
    for (const r of row) {
      if (seg.length && r.x - segEnd > Math.max(r.size * 2, 12)) flush();
      seg.push(r);
      segEnd = Math.max(segEnd, r.x + r.width);
    }
    if (seg.length) flush();
  }
  markAlone(segments);
  return segments;
}

/**
 * Set `alone` on each segment: no other segment's baseline within 0.8 × the larger font size (a row label's
 * figures can sit a point or two off its baseline, in a row of their own). Sorted by baseline, each segment
 * is compared only with those within 0.8 × the page's largest size of it: O(n log n + pairs that close),
 * not every pair of the page's segments.
 */
function markAlone(segments: Line[]): void {
  const byY = [...segments].sort((a, b) => a.y - b.y);
  const reach = 0.8 * Math.max(0, ...segments.map((s) => s.size));
  for (const s of segments) s.alone = true;
  for (let i = 0; i < byY.length; i++) {
    const s = byY[i];
    for (let j = i + 1; j < byY.length && byY[j].y - s.y < reach; j++) {
      const o = byY[j];
      if (o.y - s.y < Math.max(s.size, o.size) * 0.8) s.alone = o.alone = false;
    }
  }
}

/** x of a gutter between two columns, or null when the page reads as one column. */
function findGutter(lines: Line[], pageX0: number, pageWidth: number): number | null {
  const total = lines.reduce((s, l) => s + l.text.length, 0);
  if (total < 400 || lines.length < 10) return null;
  let best: { x: number; crossing: number } | null = null;
  for (let x = pageX0 + pageWidth * 0.3; x <= pageX0 + pageWidth * 0.7; x += 2) {
    let crossing = 0;
    for (const l of lines) if (l.x0 < x - 1 && l.x1 > x + 1) crossing += l.text.length;
    if (!best || crossing < best.crossing) best = { x, crossing };
  }
  if (!best || best.crossing > total * 0.15) return null;
  let left = 0;
  let right = 0;
  for (const l of lines) {
    if (l.x1 <= best.x + 1) left += l.text.length;
    else if (l.x0 >= best.x - 1) right += l.text.length;
  }
  return left > total * 0.2 && right > total * 0.2 ? best.x : null;
}

const byTopThenLeft = (a: Line, b: Line) => (Math.abs(a.y - b.y) > 2 ? b.y - a.y : a.x0 - b.x0);

/**
 * Lines of one page in reading order. `view` is the page box [x0, y0, x1, y1] in points; `extra` are
 * block lines (tables, figures) to place among them.
 * Returned lines carry `column` (0 full width / single column, 1 left, 2 right) and `band` (regions
 * between full-width lines), which the block builder uses as paragraph boundaries.
 */
export function pageLines(runs: TextRun[], page: number, view: number[], extra: Line[] = []): Line[] {
  const rotatedChars = runs.filter((r) => r.rotated).reduce((s, r) => s + r.str.length, 0);
  const allChars = runs.reduce((s, r) => s + r.str.length, 0);
  const kept = rotatedChars < allChars * 0.3 ? runs.filter((r) => !r.rotated) : runs;
  const lines = [...buildSegments(kept, page), ...extra];
  const gutter = findGutter(lines, view[0], view[2] - view[0]);
  if (gutter === null) return lines.sort(byTopThenLeft);

  const ordered: Line[] = [];
  const sorted = [...lines].sort(byTopThenLeft);
  let band = 0;
  let left: Line[] = [];
  let right: Line[] = [];
  const flushBand = () => {
    for (const l of left) ordered.push({ ...l, column: 1, band });
    for (const l of right) ordered.push({ ...l, column: 2, band });
    left = [];
    right = [];
    band++;
  };
  let spanning = false; // consecutive full-width lines (a multi-line title) share one band
  for (const l of sorted) {
    if (l.x1 <= gutter + 1) {
      if (spanning) band++;
      spanning = false;
      left.push(l);
    } else if (l.x0 >= gutter - 1) {
      if (spanning) band++;
      spanning = false;
      right.push(l);
    } else {
      if (left.length || right.length) flushBand();
      spanning = true;
      ordered.push({ ...l, column: 0, band });
    }
  }
  if (spanning) band++;
  flushBand();
  return ordered;
}
