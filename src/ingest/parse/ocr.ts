// OCR of one image (a scanned PDF page or an uploaded picture) into positioned text runs that the PDF
// layout code (pdf-layout.ts / pdf-blocks.ts) turns into lines and blocks, so OCR'd text gets the same
// reading order, heading and paragraph rules as a text layer. Steps:
//  1. Tesseract OSD guesses the script and rotation; a rotated scan is turned upright with sharp.
//  2. The script picks the candidate language sets (only installed ones): Han -> Chinese and Japanese
//     (both tried, the one with the higher confidence wins), Hangul -> Korean+English, Japanese kana ->
//     Japanese (horizontal + vertical models), Latin/unknown -> English. When more than 20% of the
//     recognised characters have confidence < 50 (text in a script the model does not read, e.g. Korean
//     lines in a mostly English page), each other installed CJK set (+ English) is tried and the best
//     character-weighted confidence wins.
//  3. Words become runs: one run per word, except that touching CJK words are merged (Tesseract emits
//     CJK characters as separate "words"; the layout code would otherwise put spaces between them).
// DOCSEARCH_OCR_LANGS (e.g. "deu+eng") replaces the automatic choice with a fixed language string.
import sharp from 'sharp';
import type { TextRun } from './pdf-layout.ts';
import { detectScript, installedLanguages, recognizeWords, type OcrWord } from './ocr-tesseract.ts';
import { DEFAULT_CANDIDATES, RETRY_CANDIDATES, SCRIPT_CANDIDATES } from './ocr-languages.ts';

export interface OcrOptions {
  /** Size of the area the image covers, in points (a PDF page); default: 1 px = 1 pt at 72 dpi. */
  widthPt?: number;
  heightPt?: number;
  signal?: AbortSignal;
  /** Per tesseract run; default 60 s. */
  timeoutMs?: number;
}

export interface OcrResult {
  /** Runs in PDF-style coordinates: points, y up from the bottom edge, baseline y. */
  runs: TextRun[];
  /** Character-weighted mean word confidence 0..100 (0 when nothing was read). */
  confidence: number;
  /** Tesseract language string that produced the runs. */
  langs: string;
  chars: number;
}

/** Thrown when tesseract (or any language data) is not installed. */
export class OcrUnavailableError extends Error {}

/** Scripts written without spaces between words (Han, kana) plus CJK and typographic punctuation. */
const CJK = /[\u2018-\u201f\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;
const LOW_CONF = 50;

function candidatesFor(script: string | undefined): string[] {
  return [...(script && Object.hasOwn(SCRIPT_CANDIDATES, script) ? SCRIPT_CANDIDATES[script] : DEFAULT_CANDIDATES)];
}

/** Keep only language strings whose every part is installed (dropping missing optional parts). */
function usable(cands: string[], have: Set<string>): string[] {
  const out: string[] = [];
  for (const c of cands) {
    const parts = c.split('+').filter((p) => have.has(p));
    if (parts.length && parts[0] === c.split('+')[0]) out.push(parts.join('+'));
  }
  return [...new Set(out)];
}

/** Words grouped into tesseract lines (block.par.line), in tesseract's reading order. */
function groupLines(words: OcrWord[]): OcrWord[][] {
  const lines = new Map<string, OcrWord[]>();
  for (const w of words) {
    const key = `${w.block}.${w.par}.${w.line}`;
    if (!lines.has(key)) lines.set(key, []);
    lines.get(key)!.push(w);
  }
  return [...lines.values()];
}

/**
 * Character-weighted mean confidence, and the share of characters on lines whose mean confidence is
 * below LOW_CONF (whole lines in a script the model cannot read score ~25-55; one bad word does not).
 */
function score(words: OcrWord[]): { confidence: number; chars: number; lowFraction: number } {
  let chars = 0;
  let weighted = 0;
  let low = 0;
  for (const line of groupLines(words)) {
    let n = 0;
    let c = 0;
    for (const w of line) {
      const len = [...w.text].length;
      n += len;
      c += w.conf * len;
    }
    chars += n;
    weighted += c;
    if (n && c / n < LOW_CONF + 10) low += n;
  }
  return { confidence: chars ? weighted / chars : 0, chars, lowFraction: chars ? low / chars : 1 };
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
function toRuns(words: OcrWord[], pxW: number, pxH: number, widthPt: number, heightPt: number): TextRun[] {
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
 * OCR an image into positioned runs.
 * @param image any format sharp reads (PNG, JPEG, TIFF, WebP…); small images are upscaled 2× first
 * @throws OcrUnavailableError when tesseract or its language data is missing; Error on tesseract failure
 */
export async function ocrImage(image: Buffer, opts: OcrOptions = {}): Promise<OcrResult> {
  const have = await installedLanguages();
  if (!have.size) throw new OcrUnavailableError('OCR is not available: install tesseract-ocr and its language packages.');
  let img = sharp(image, { limitInputPixels: 100_000_000 }).rotate(); // EXIF orientation
  const meta = await img.metadata();
  const swapped = (meta.orientation ?? 1) >= 5; // EXIF orientations 5-8 turn the picture by 90°
  let pxW = (swapped ? meta.height : meta.width) ?? 1;
  let pxH = (swapped ? meta.width : meta.height) ?? 1;
  let widthPt = opts.widthPt ?? pxW;
  let heightPt = opts.heightPt ?? pxH;
  // Tesseract wants text ~20-30 px high; small pictures (screenshots, web images) are upscaled.
  const factor = Math.max(pxW, pxH) < 1200 ? 2 : 1;
  if (factor > 1) img = img.resize({ width: pxW * factor, height: pxH * factor, kernel: 'lanczos3' });
  if (meta.hasAlpha) img = img.flatten({ background: '#ffffff' });
  let png = await img.png({ compressionLevel: 1 }).toBuffer();
  pxW *= factor;
  pxH *= factor;

  const fixed = process.env.DOCSEARCH_OCR_LANGS?.trim();
  const osd = fixed ? null : await detectScript(png, { signal: opts.signal });
  if (osd && osd.rotate) {
    png = await sharp(png).rotate(osd.rotate).png({ compressionLevel: 1 }).toBuffer();
    if (osd.rotate % 180) {
      [pxW, pxH] = [pxH, pxW];
      [widthPt, heightPt] = [heightPt, widthPt];
    }
  }
  const run = async (langs: string) => {
    const words = await recognizeWords(png, { langs, signal: opts.signal, timeoutMs: opts.timeoutMs });
    return { langs, words, ...score(words) };
  };
  let cands = fixed ? [fixed] : usable(candidatesFor(osd?.script), have);
  if (!cands.length) cands = [[...have][0]];
  let best = null as Awaited<ReturnType<typeof run>> | null;
  for (const c of cands) {
    const r = await run(c);
    if (!best || r.confidence > best.confidence) best = r;
  }
  if (!fixed && best && best.chars > 0 && best.lowFraction > 0.2) {
    const tried = new Set(cands);
    for (const c of usable([...RETRY_CANDIDATES], have)) {
      if (tried.has(c)) continue;
      const r = await run(c);
      if (r.confidence > best.confidence + 2) best = r;
      if (best.lowFraction < 0.1) break;
    }
  }
  const words = best!.words.filter((w) => w.conf >= 10 || [...w.text].length > 1);
  return {
    runs: toRuns(words, pxW, pxH, widthPt, heightPt),
    confidence: best!.confidence,
    langs: best!.langs,
    chars: best!.chars,
  };
}
