// Tesseract's words -> positioned text runs for the PDF layout code (pdf-layout.ts), split from ocr.ts:
// one run per word, except that the words of one line that tesseract writes without spaces between
// them (Chinese/Japanese characters, which it emits one "word" each; the layout code would otherwise
// put spaces between them) are merged; vertical CJK pages are turned a quarter so that they read in
// order; coordinates go from image pixels (y down) to points (y up from the bottom edge). Also the
// folding of a sparse-mode reading into the main one (ocr.ts step 3).
import type { TextRun } from './pdf-layout.ts';
import type { OcrWord } from './ocr-tesseract.ts';

/** Scripts written without spaces between words (Han, kana) plus CJK and typographic punctuation. */
const CJK = /[\u2018-\u201f\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/** Words grouped into tesseract lines (block.par.line), in tesseract's reading order. */
export function groupLines(words: OcrWord[]): OcrWord[][] {
  const lines = new Map<string, OcrWord[]>();
  for (const w of words) {
    const key = `${w.block}.${w.par}.${w.line}`;
    if (!lines.has(key)) lines.set(key, []);
    lines.get(key)!.push(w);
  }
  return [...lines.values()];
}

interface PxBox { text: string; left: number; top: number; right: number; bottom: number }

/** A tesseract line of CJK text set top-to-bottom (a tall, narrow box). */
function isVertical(line: OcrWord[]): boolean {
  const left = Math.min(...line.map((w) => w.left));
  const right = Math.max(...line.map((w) => w.left + w.width));
  const top = Math.min(...line.map((w) => w.top));
  const bottom = Math.max(...line.map((w) => w.top + w.height));
  return bottom - top > 1.5 * (right - left) && line.some((w) => /[\u3040-\u30ff\u3400-\u9fff]/.test(w.text));
}

/**
 * Merge the words of one line that tesseract's text output writes without a space between them (or,
 * when that is unknown, touching CJK words along the writing direction) into one box each.
 */
function mergeCjk(line: OcrWord[], vertical: boolean): PxBox[] {
  const out: PxBox[] = [];
  for (const w of line) {
    const box = { text: w.text, left: w.left, top: w.top, right: w.left + w.width, bottom: w.top + w.height };
    const cur = out.at(-1);
    const extent = vertical ? box.right - box.left : box.bottom - box.top;
    const gap = cur ? (vertical ? box.top - cur.bottom : box.left - cur.right) : Infinity;
    const join = w.spaceBefore !== undefined
      ? !w.spaceBefore
      : CJK.test(cur?.text.slice(-1) ?? '') && CJK.test(w.text[0]) && gap < extent * 0.6;
    if (cur && join) {
      cur.text += w.text;
      cur.left = Math.min(cur.left, box.left);
      cur.top = Math.min(cur.top, box.top);
      cur.right = Math.max(cur.right, box.right);
      cur.bottom = Math.max(cur.bottom, box.bottom);
    } else out.push(box);
  }
  return out;
}

/**
 * Words -> runs in points with y up. Line "size" is the line box height, snapped to the page's
 * median when within 25% of it (OCR boxes jitter; body lines must share one size for the paragraph
 * rules). When most characters sit on vertical lines (Japanese/Chinese tategaki), the page is turned
 * a quarter: columns become rows, the rightmost column first, so the layout code reads it in order.
 */
export function toRuns(words: OcrWord[], pxW: number, pxH: number, widthPt: number, heightPt: number): TextRun[] {
  const lines = groupLines(words);
  const chars = (l: OcrWord[]) => l.reduce((s, w) => s + [...w.text].length, 0);
  const verticalChars = lines.filter(isVertical).reduce((s, l) => s + chars(l), 0);
  const vertical = verticalChars > words.reduce((s, w) => s + [...w.text].length, 0) / 2;
  const sx = widthPt / pxW;
  const sy = heightPt / pxH;
  const boxes = lines.map((l) => mergeCjk(l, vertical && isVertical(l)));
  const thickness = (bs: PxBox[]) => vertical
    ? Math.max(...bs.map((b) => b.right)) - Math.min(...bs.map((b) => b.left))
    : Math.max(...bs.map((b) => b.bottom)) - Math.min(...bs.map((b) => b.top));
  const heights = boxes.map(thickness).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)] ?? 1;
  const runs: TextRun[] = [];
  for (const bs of boxes) {
    let h = thickness(bs);
    if (Math.abs(h - median) < median * 0.25) h = median;
    if (vertical) {
      // Quarter turn: the column's right edge becomes the baseline height, its top the x position.
      const right = Math.max(...bs.map((b) => b.right));
      const size = Math.max(1, Math.round(h * sx * 10) / 10);
      for (const b of bs) runs.push({ str: b.text, x: b.top * sy, y: right * sx, width: (b.bottom - b.top) * sy, size, hasEOL: false, rotated: false });
    } else {
      const bottom = Math.max(...bs.map((b) => b.bottom));
      const size = Math.max(1, Math.round(h * sy * 10) / 10);
      const baseline = heightPt - (bottom - h * 0.2) * sy;
      for (const b of bs) runs.push({ str: b.text, x: b.left * sx, y: baseline, width: (b.right - b.left) * sx, size, hasEOL: false, rotated: false });
    }
  }
  return runs;
}

/**
 * The main reading with a sparse-mode reading folded in: each confidently read sparse word (>=
 * `confident`) is added where the main reading has nothing, and replaces the main words it overlaps when
 * it was read with higher confidence than all of them (text scattered over a picture that page
 * segmentation skipped or misread), unless its letters are part of one of those words (a piece of a
 * word the main reading has). Added words get block numbers past the main reading's, so they
 * form lines of their own.
 */
export function foldSparse(main: OcrWord[], sparse: OcrWord[], confident: number): OcrWord[] {
  const overlaps = (a: OcrWord, b: OcrWord) =>
    a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;
  const letters = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const offset = Math.max(0, ...main.map((w) => w.block)) + 1;
  const dropped = new Set<OcrWord>();
  const added: OcrWord[] = [];
  for (const w of sparse) {
    if (w.conf < confident || !/[\p{L}\p{N}]/u.test(w.text)) continue;
    const hit = main.filter((m) => overlaps(m, w));
    if (hit.some((m) => m.conf >= w.conf)) continue;
    // A piece of a word the main reading has ("Chain" under "_LangChain"): nothing to add.
    if (hit.some((m) => letters(m.text).includes(letters(w.text)))) continue;
    for (const m of hit) dropped.add(m);
    added.push({ ...w, block: w.block + offset });
  }
  return [...main.filter((m) => !dropped.has(m)), ...added];
}
