// Ruled-table detection for the PDF parser. A table is found from its drawn rules, then read from the
// text runs inside it:
//  1. Horizontal rules (pdf-graphics.ts) that touch end to end are merged; rules ≥ 30 pt long that are
//     stacked with overlapping extents (each overlapping the one above by ≥ 50% of the shorter, and at
//     least half as long) and less than 20 body lines apart form a
//     candidate (booktabs' top/mid/bottom rules, a full grid, or a header rule plus a bottom rule).
//  2. A band between two consecutive rules that holds running text (≥ 30% of its rows are one stretch
//     of words over 60% of the width) splits the group, so paragraphs and charts next to a table stay
//     out. Runs whose baseline lies inside a remaining region are the table's text, grouped into rows
//     by vertical overlap (superscripts stay in their row).
//  3. Column boundaries are vertical rules inside the region plus whitespace gutters: x-intervals at
//     least 0.8 em wide that no run of any row covers (whitespace-only runs ignored).
//  4. A row that is not separated from the previous one by a rule and has its first cell empty and
//     at most half its cells filled continues the previous row (wrapped cell text).
//     Rows with text just outside the region on the same baseline (≥ 50% of rows: rules under some
//     columns only, as in financial statements) make it no table; that text stays in the text flow.
//  5. Accepted when it has ≥ 2 rows and ≥ 2 columns, ≥ 40% of its cells are filled and half its rows
//     have two or more filled cells (a boxed diagram or a chart's axis labels fail this); rows above the
//     first inner rule become the header (joined per column), else the first row is the header. Leading
//     rows above the first inner rule with text in the first column only are a title and page furniture
//     inside the top rule: they are left to the text flow, where headings are recognised.
// Output: GFM Markdown plus the structured rows (header first), and the runs it consumed.
import { joinRuns, type TextRun } from './pdf-layout.ts';
import type { Segment } from './pdf-graphics.ts';

export interface PdfTable {
  /** Header row first; every row has `columns` cells. */
  rows: string[][];
  markdown: string;
  /** Region in points: x0..x1, bottom..top. */
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** Indices (into the page's run array) of the runs the table consumed. */
  used: Set<number>;
}

/** Shortest merged horizontal stroke (PDF units) that counts as a table rule; shorter ones are underlines and glyph parts. */
const MIN_RULE = 30;

function mergeRules(segs: Segment[]): Segment[] {
  const sorted = [...segs].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const out: Segment[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && Math.abs(last.y0 - s.y0) < 1.2 && s.x0 <= last.x1 + 2) last.x1 = Math.max(last.x1, s.x1);
    else out.push({ ...s });
  }
  return out.filter((s) => s.x1 - s.x0 >= MIN_RULE);
}

function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/** Groups of stacked, overlapping rules, top first within each group. */
function ruleGroups(rules: Segment[], lineGap: number): Segment[][] {
  const byTop = [...rules].sort((a, b) => b.y0 - a.y0);
  const groups: Segment[][] = [];
  for (const r of byTop) {
    const g = groups.find((grp) => {
      const last = grp.at(-1)!;
      const shorter = Math.min(last.x1 - last.x0, r.x1 - r.x0);
      const longer = Math.max(last.x1 - last.x0, r.x1 - r.x0);
      return last.y0 - r.y0 <= lineGap && overlap(last.x0, last.x1, r.x0, r.x1) >= 0.5 * shorter && shorter >= 0.5 * longer;
    });
    if (g) g.push(r);
    else groups.push([r]);
  }
  // De-duplicate double rules (two lines < 2 pt apart) so they do not create empty bands.
  return groups.map((g) => g.filter((r, i) => i === 0 || g[i - 1].y0 - r.y0 > 2)).filter((g) => g.length >= 2);
}

interface Row { runs: number[]; top: number; bottom: number }

function groupRows(runs: TextRun[], idx: number[]): Row[] {
  const ext = (r: TextRun) => [r.y - r.size * 0.15, r.y + r.size * 0.7] as const;
  const sorted = [...idx].sort((a, b) => runs[b].y - runs[a].y);
  const rows: Row[] = [];
  for (const i of sorted) {
    const [b, t] = ext(runs[i]);
    const row = rows.find((r) => overlap(r.bottom, r.top, b, t) >= 0.5 * Math.min(r.top - r.bottom, t - b));
    if (row) {
      row.runs.push(i);
      row.top = Math.max(row.top, t);
      row.bottom = Math.min(row.bottom, b);
    } else rows.push({ runs: [i], top: t, bottom: b });
  }
  return rows.sort((a, b) => b.top - a.top);
}

/** Column boundaries (x positions) from vertical rules and whitespace gutters. */
function columnBounds(runs: TextRun[], rows: Row[], vRules: number[], x0: number, x1: number, em: number): number[] {
  const step = 0.5;
  const n = Math.ceil((x1 - x0) / step) + 1;
  const covered = new Uint8Array(n);
  for (const row of rows) {
    for (const i of row.runs) {
      const r = runs[i];
      const a = Math.max(0, Math.floor((r.x - x0) / step));
      const b = Math.min(n - 1, Math.ceil((r.x + r.width - x0) / step));
      for (let k = a; k <= b; k++) covered[k] = 1;
    }
  }
  const bounds: number[] = [...vRules];
  let first = covered.indexOf(1);
  let last = covered.lastIndexOf(1);
  if (first < 0) return bounds;
  let gapStart = -1;
  for (let k = first; k <= last; k++) {
    if (!covered[k] && gapStart < 0) gapStart = k;
    if (covered[k] && gapStart >= 0) {
      if ((k - gapStart) * step >= em * 0.8) bounds.push(x0 + ((gapStart + k) / 2) * step);
      gapStart = -1;
    }
  }
  bounds.sort((a, b) => a - b);
  return bounds.filter((b, i) => i === 0 || b - bounds[i - 1] > 3);
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** GFM table text for rows (first row = header). */
export function rowsToMarkdown(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`;
  return [line(rows[0]), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n');
}

interface Region { top: number; bottom: number; x0: number; x1: number; inner: number[] }

/** A row that reads as running text: one stretch of words covering most of the region's width. */
function isProseRow(runs: TextRun[], row: Row, width: number, em: number): boolean {
  const rs = row.runs.map((i) => runs[i]).filter((r) => r.str.trim()).sort((a, b) => a.x - b.x);
  let segments = 0;
  let widest = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const r of rs) {
    if (r.x - end > em * 0.8) {
      segments++;
      start = r.x;
    }
    end = Math.max(end, r.x + r.width);
    widest = Math.max(widest, end - start);
  }
  return segments === 1 && widest > width * 0.6;
}

/**
 * Split a rule group into regions at bands (the space between two consecutive rules) that hold
 * running text, so a table never swallows the paragraph or chart next to it.
 */
function regionsOf(group: Segment[], runs: TextRun[], taken: Set<number>, em: number): Region[] {
  const x0 = Math.min(...group.map((s) => s.x0)) - 2;
  const x1 = Math.max(...group.map((s) => s.x1)) + 2;
  const regions: Region[] = [];
  let cur: Region | null = null;
  for (let k = 0; k + 1 < group.length; k++) {
    const top = group[k].y0;
    const bottom = group[k + 1].y0;
    const idx = runsIn(runs, taken, top, bottom, x0, x1).filter((i) => runs[i].str.trim());
    const rows = groupRows(runs, idx);
    const prose = rows.filter((r) => isProseRow(runs, r, x1 - x0, em)).length;
    if (rows.length && prose >= Math.max(1, rows.length * 0.3)) {
      if (cur) regions.push(cur);
      cur = null;
      continue;
    }
    if (cur) {
      cur.inner.push(top);
      cur.bottom = bottom;
    } else cur = { top, bottom, x0, x1, inner: [] };
  }
  if (cur) regions.push(cur);
  return regions;
}

function runsIn(runs: TextRun[], taken: Set<number>, top: number, bottom: number, x0: number, x1: number): number[] {
  return runs.map((_, i) => i).filter((i) => {
    const r = runs[i];
    const cx = r.x + r.width / 2;
    return !taken.has(i) && r.y < top && r.y > bottom && cx > x0 && cx < x1 && !r.rotated;
  });
}

/** Read one region as a table, or null when it does not look like one. */
function readRegion(runs: TextRun[], taken: Set<number>, reg: Region, vertical: Segment[], bodySize: number): PdfTable | null {
  const { top, bottom, x0, x1, inner } = reg;
  const inside = runsIn(runs, taken, top, bottom, x0, x1);
  const textIdx = inside.filter((i) => runs[i].str.trim());
  if (textIdx.length < 4) return null;
  const rows = groupRows(runs, textIdx);
  // Rules that underline only some columns (financial statements: the labels sit left of the rules)
  // would cut rows in two; such a region is left to the text flow.
  const span = x1 - x0;
  const outside = rows.filter((row) => {
    const baseline = median(row.runs.map((i) => runs[i].y));
    return runs.some((r, i) => !taken.has(i) && r.str.trim() && Math.abs(r.y - baseline) < 1 &&
      (r.x + r.width < x0 + 1 ? x0 - (r.x + r.width) < span : r.x > x1 - 1 && r.x - x1 < span));
  }).length;
  if (outside >= rows.length * 0.5) return null;
  const em = median(textIdx.map((i) => runs[i].size)) || bodySize;
  const vx = vertical.filter((v) => v.x0 > x0 + 3 && v.x0 < x1 - 3 && overlap(v.y0, v.y1, bottom, top) > em * 0.8).map((v) => v.x0);
  const bounds = columnBounds(runs, rows, vx, x0, x1, em);
  const cols = bounds.length + 1;
  if (cols < 2 || rows.length < 2) return null;
  const colOf = (r: TextRun) => {
    const cx = r.x + r.width / 2;
    let c = 0;
    while (c < bounds.length && cx > bounds[c]) c++;
    return c;
  };
  const ruleBetween = (a: Row, b: Row) => inner.some((y) => y < a.bottom + 1 && y > b.top - 1);
  let cells: string[][] = [];
  const kept: Row[] = [];
  for (const row of rows) {
    const parts: TextRun[][] = Array.from({ length: cols }, () => []);
    for (const i of row.runs) parts[colOf(runs[i])].push(runs[i]);
    // Control characters (glyphs without a Unicode mapping) are dropped from cells.
    const texts = parts.map((p) => joinRuns(p.sort((a, b) => a.x - b.x)).replace(/[\u0000-\u001f\u007f]/g, '').trim());
    const filled = texts.filter(Boolean).length;
    const prev = kept.at(-1);
    if (prev && !ruleBetween(prev, row) && !texts[0] && filled <= cols / 2) {
      const target = cells.at(-1)!;
      texts.forEach((t, c) => { if (t) target[c] = target[c] ? `${target[c]} ${t}` : t; });
      prev.bottom = row.bottom;
      prev.runs.push(...row.runs);
      continue;
    }
    cells.push(texts);
    kept.push(row);
  }
  // Caption rows: the leading rows above the first inner rule whose only text is in the first column are
  // the table's title and the page furniture above it ("Table of Contents", "INCOME STATEMENTS",
  // "(In millions, except per share amounts)") that a rule drawn above them put inside the region. Joined
  // into the header's first cell, the title was lost to heading detection, so the statement's chunks kept
  // the previous section's heading path; left to the text flow, it is read like any other line.
  const firstInner = inner[0];
  let caption = 0;
  while (firstInner !== undefined && caption < kept.length - 2 && kept[caption].bottom > firstInner &&
    cells[caption][0] && cells[caption].filter(Boolean).length === 1) caption++;
  const released = new Set(kept.slice(0, caption).flatMap((r) => r.runs));
  cells = cells.slice(caption);
  kept.splice(0, caption);
  // Columns no row fills (a gutter next to a border rule) are dropped.
  const usedCols = Array.from({ length: cols }, (_, c) => c).filter((c) => cells.some((r) => r[c]));
  cells = cells.map((r) => usedCols.map((c) => r[c]));
  const width = usedCols.length;
  const filled = cells.flat().filter(Boolean).length;
  if (width < 2 || cells.length < 2 || filled < cells.length * width * 0.4) return null;
  if (cells.filter((r) => r.filter(Boolean).length >= 2).length < cells.length * 0.5) return null;
  // Header: the rows above the first inner rule (when that leaves body rows), joined per column.
  // Rows with a numeric cell past the first column are data, never header.
  const numeric = (r: string[]) => r.slice(1).some((c) => /^[\s$€£¥(−–—-]*[\d.,]+[%)]*$/.test(c) && /\d/.test(c));
  let headerRows = firstInner === undefined ? 1 : kept.filter((r) => r.bottom > firstInner).length;
  const firstData = cells.findIndex(numeric);
  if (firstData >= 0) headerRows = Math.min(headerRows, firstData);
  if (headerRows < 1 || headerRows >= cells.length) headerRows = 1;
  const header = Array.from({ length: width }, (_, c) => cells.slice(0, headerRows).map((r) => r[c]).filter(Boolean).join(' '));
  cells = [header, ...cells.slice(headerRows)];
  const tableTop = caption > 0 ? kept[0].top + 0.5 : top;
  return { rows: cells, markdown: rowsToMarkdown(cells), x0, x1, top: tableTop, bottom, used: new Set(inside.filter((i) => !released.has(i))) };
}

/**
 * Ruled tables of one page.
 * @param runs   the page's text runs (points, y up)
 * @param horizontal / vertical  rules from pageGraphics
 * @param bodySize  body font size of the page (em for gutter widths)
 */
export function findTables(runs: TextRun[], horizontal: Segment[], vertical: Segment[], bodySize: number): PdfTable[] {
  const tables: PdfTable[] = [];
  const taken = new Set<number>();
  for (const group of ruleGroups(mergeRules(horizontal), bodySize * 1.3 * 20)) {
    for (const reg of regionsOf(group, runs, taken, bodySize)) {
      const t = readRegion(runs, taken, reg, vertical, bodySize);
      if (!t) continue;
      for (const i of t.used) taken.add(i);
      tables.push(t);
    }
  }
  return tables;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}
