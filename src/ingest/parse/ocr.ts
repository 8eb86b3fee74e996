// OCR of one image (a scanned PDF page or an uploaded picture) into positioned text runs that the PDF
// layout code (pdf-layout.ts / pdf-blocks.ts) turns into lines and blocks, so OCR'd text gets the same
// reading order, heading and paragraph rules as a text layer. Steps (the common case is one tesseract
// run):
//  0. The picture is scaled as requested and encoded as PNG; light-on-dark pictures are redrawn as grey
//     ink on white, each pixel against its local background (ocr-image-prep.ts, ocr-local-ink.ts).
//  1. English first: most pages are upright Latin text, and then one run is all it takes. Only when
//     English reads badly (character-weighted confidence < 60: another script, or a rotated page), or
//     most of its lines stand taller than wide (a page turned a quarter, which tesseract reads but
//     with its lines on end), does Tesseract's OSD guess the script and rotation (it costs as much as a
//     recognition run); a rotated scan is turned upright and read again. A light-on-dark picture whose
//     English reading holds 20+ confidently read characters skips OSD: it is Latin, and its low mean
//     confidence comes from its drawings (OSD also guessed a diagram upside down).
//  2. The script picks the candidate language sets (only installed ones), run side by side: Han ->
//     Chinese and Japanese, Hangul -> Korean+English, Japanese kana -> Japanese (horizontal + vertical
//     models), Latin/unknown -> English. When more than 20% of the characters sit on low-confidence
//     lines (e.g. Korean lines in a mostly English page), each other installed CJK set (+ English) is
//     tried. Between readings the higher character-weighted confidence wins, unless one reads 1.5× as
//     many characters with confidence >= 60 (then that one).
//  3. When under 60% of the characters are confident, or the picture was light-on-dark (a diagram, a
//     slide, text scattered over a picture), tesseract's sparse-text mode (psm 11) is run too and its
//     confidently read words are folded in where the first reading has nothing or read worse (not a
//     piece of a word the first reading has).
//  4. Words become runs (ocr-runs.ts).
// DOCSEARCH_OCR_LANGS (e.g. "deu+eng") replaces the automatic choice with a fixed language string.
import type { TextRun } from './pdf-layout.ts';
import { detectScript, installedLanguages, recognizeWords, type OcrWord } from './ocr-tesseract.ts';
import { DEFAULT_CANDIDATES, RETRY_CANDIDATES, SCRIPT_CANDIDATES } from './ocr-languages.ts';
import { decodeImage, estimateLineHeight, prepareForOcr, rotateImage, type PreparedImage, type RawImage, type RgbImage } from './ocr-image-prep.ts';
import { foldSparse, groupLines, toRuns } from './ocr-runs.ts';
import { traced } from './ocr-trace.ts';

export type { RawImage } from './ocr-image-prep.ts';

export interface OcrOptions {
  /** Size of the area the image covers, in points (a PDF page); default: 1 px = 1 pt at 72 dpi. */
  widthPt?: number;
  heightPt?: number;
  /** Resize factor before OCR; default defaultScale() (small text enlarged, up to 2×). */
  scale?: number;
  /**
   * With `scale`: enlarge further, up to this factor, when the text lines measured on the picture
   * would be under ~20 px high at `scale` (one run at the right size instead of a second, larger one).
   */
  maxScale?: number;
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
  /** Median height of the recognised words in pixels of the image tesseract read (0: no words). */
  wordHeightPx: number;
  /** Size of the page the runs lie on, points (swapped from the input's when OSD turned it upright). */
  widthPt: number;
  heightPt: number;
  /** Scale that was used, and whether the picture was inverted (light text on a dark background). */
  scale: number;
  inverted: boolean;
}

/** Thrown when tesseract (or any language data) is not installed. */
export class OcrUnavailableError extends Error {}

/** Line confidence below which a line counts as read badly: a script the model cannot read scores ~25-55 per line (score()). */
const LOW_CONF = 50;
/** English read below this confidence: look at the script and orientation (OSD). */
const OSD_BELOW = 60;
/** A candidate language read at or above this confidence (with few unsure lines) ends the search. */
const SURE = 80;
/** Words at or above this confidence count as confidently read (sparse-mode decision). */
const CONFIDENT = 60;
/** Median word height (px) below which text is too small for tesseract: read again larger. */
const SMALL_TEXT_PX = 16;
/** Line height (px) the default scale aims for. */
const TARGET_LINE_PX = 20;
/**
 * Confidently read characters (>= CONFIDENT) of English on a light-on-dark picture above which OSD is
 * skipped: the diagram of ../shared/data/docs/html reads 49, white-on-black Chinese and Japanese
 * pictures 3 and 7 (their script still comes from OSD).
 */
const LATIN_LABEL_CHARS = 20;
/** Word height (px) a re-read aims for (tesseract reads best at x-heights of ~20 px). */
const TARGET_TEXT_PX = 26;

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

interface Reading {
  langs: string;
  words: OcrWord[];
  confidence: number;
  chars: number;
  /** Share of characters on lines whose mean confidence is below LOW_CONF + 10. */
  lowFraction: number;
  /** Characters in words read with confidence >= CONFIDENT. */
  confidentChars: number;
  /** Share of characters on lines of 3+ characters that stand taller than wide (a page on its side). */
  sidewaysFraction: number;
}

/**
 * Character-weighted mean confidence, and the share of characters on lines whose mean confidence is
 * below LOW_CONF (whole lines in a script the model cannot read score ~25-55; one bad word does not).
 */
function score(words: OcrWord[]): Omit<Reading, 'langs' | 'words'> {
  let chars = 0;
  let weighted = 0;
  let low = 0;
  let confidentChars = 0;
  let sideways = 0;
  for (const line of groupLines(words)) {
    let n = 0;
    let c = 0;
    for (const w of line) {
      const len = [...w.text].length;
      n += len;
      c += w.conf * len;
      if (w.conf >= CONFIDENT) confidentChars += len;
    }
    chars += n;
    weighted += c;
    if (n && c / n < LOW_CONF + 10) low += n;
    const w = Math.max(...line.map((x) => x.left + x.width)) - Math.min(...line.map((x) => x.left));
    const h = Math.max(...line.map((x) => x.top + x.height)) - Math.min(...line.map((x) => x.top));
    if (n >= 3 && h > 1.5 * w) sideways += n;
  }
  return { confidence: chars ? weighted / chars : 0, chars, lowFraction: chars ? low / chars : 1, confidentChars, sidewaysFraction: chars ? sideways / chars : 0 };
}

/**
 * Whether reading `a` beats `b`: clearly more confidently read characters (1.5×) wins outright (a
 * language that reads 9 characters of a page with high confidence must not beat one that reads 50);
 * otherwise the higher character-weighted confidence, by more than `margin`.
 */
function better(a: Reading, b: Reading, margin = 0): boolean {
  if (a.confidentChars >= 1.5 * b.confidentChars && a.confidentChars > b.confidentChars) return true;
  if (b.confidentChars >= 1.5 * a.confidentChars && b.confidentChars > a.confidentChars) return false;
  return a.confidence > b.confidence + margin;
}

/**
 * Default scale of a picture: enough for its text lines (ocr-image-prep.ts estimateLineHeight) to be
 * ~20 px high, between 1× and 2× (tesseract reads best at x-heights near 20 px; a line of 20 px read
 * as well as larger ones on ../shared/data/docs/img, at a fraction of the CPU). Without an estimate:
 * 2× when the long side is under 1,200 px (screenshots, web images), else as is.
 */
export function defaultScale(img: RgbImage): number {
  const line = estimateLineHeight(img);
  if (line) return Math.min(2, Math.max(1, TARGET_LINE_PX / line));
  return Math.max(img.width, img.height) < 1200 ? 2 : 1;
}

/**
 * `scale`, raised up to `maxScale` so that the picture's text lines (estimateLineHeight, on `img`,
 * which is the picture reduced by `shrink`) come out ~20 px high; unchanged without an estimate.
 */
export function fitScale(img: RgbImage, scale: number, shrink: number, maxScale: number): number {
  const line = estimateLineHeight(img);
  if (!line || maxScale <= scale) return scale;
  const atScale = (line * scale) / shrink;
  return atScale < TARGET_LINE_PX ? Math.min(maxScale, (scale * TARGET_LINE_PX) / atScale) : scale;
}

/**
 * Scale for a second reading when the text came out too small for tesseract (median word height
 * below 16 px), or null when the first reading stands.
 * @param maxScale the largest scale the caller offers (e.g. 300 dpi / the rendered dpi)
 */
export function rereadScale(result: OcrResult, maxScale: number): number | null {
  if (!result.wordHeightPx || result.wordHeightPx >= SMALL_TEXT_PX) return null;
  const next = Math.min(maxScale, result.scale * (TARGET_TEXT_PX / result.wordHeightPx));
  return next > result.scale * 1.2 ? next : null;
}

/** The language choice of steps 1-3 of the header, on one prepared picture. */
async function recognise(img: RgbImage, page: PreparedImage, scale: number, have: Set<string>, opts: OcrOptions): Promise<{ best: Reading; page: PreparedImage; rotated: number }> {
  const fixed = process.env.DOCSEARCH_OCR_LANGS?.trim();
  const run = async (p: PreparedImage, langs: string, psm = 3): Promise<Reading> => {
    const words = await recognizeWords(p.png, { langs, psm, signal: opts.signal, timeoutMs: opts.timeoutMs });
    return { langs, words, ...score(words) };
  };
  const pick = (rs: Reading[]) => rs.reduce((a, b) => (better(b, a) ? b : a));
  let rotated = 0;
  let tried = new Set<string>();
  let best: Reading;
  if (fixed) {
    best = await run(page, fixed);
  } else {
    const first = usable([...DEFAULT_CANDIDATES], have)[0] ?? [...have][0];
    best = await run(page, first);
    tried.add(first);
    // Tesseract reads a page turned a quarter line by line too, but its lines then stand upright.
    // A light-on-dark picture (a diagram) whose English reading already holds LATIN_LABEL_CHARS confident
    // characters is Latin and upright: its low mean confidence is the noise of its drawings.
    const latinPicture = page.inverted && best.confidentChars >= LATIN_LABEL_CHARS;
    if ((best.confidence < OSD_BELOW && !latinPicture) || best.sidewaysFraction > 0.5) {
      const osd = await detectScript(page.png, { signal: opts.signal });
      if (osd?.rotate) {
        rotated = osd.rotate;
        page = await traced('prep rotate', async () => prepareForOcr(await rotateImage(img, osd.rotate), scale));
        tried = new Set();
      }
      const cands = usable(candidatesFor(osd?.script), have).filter((c) => !tried.has(c));
      for (const c of cands) tried.add(c);
      // Candidates in order; the next ones only when the first reads unsurely (Han: Chinese first,
      // Japanese only when Chinese reads below SURE; a Japanese page's kana read badly as Chinese).
      const readings: Reading[] = rotated ? [] : [best];
      for (const c of cands) {
        const r = await run(page, c);
        readings.push(r);
        if (r.confidence >= SURE && r.lowFraction < 0.1) break;
      }
      if (readings.length) best = pick(readings);
    }
    // Mixed scripts on a text page; a light-on-dark picture (a diagram) goes to sparse mode instead.
    if (best.chars > 0 && best.lowFraction > 0.2 && !page.inverted) {
      for (const c of usable([...RETRY_CANDIDATES], have)) {
        if (tried.has(c)) continue;
        tried.add(c);
        const r = await run(page, c);
        if (better(r, best, 2)) best = r;
        if (best.lowFraction < 0.1) break;
      }
    }
  }
  if (page.inverted || best.chars === 0 || best.confidentChars < 0.6 * best.chars) {
    const sparse = await run(page, best.langs, 11);
    const merged = foldSparse(best.words, sparse.words, CONFIDENT);
    best = { langs: best.langs, words: merged, ...score(merged) };
  }
  return { best, page, rotated };
}

/**
 * OCR an image into positioned runs.
 * @param image any format sharp reads (PNG, JPEG, TIFF, WebP…), or raw pixels (a rendered page)
 * @throws OcrUnavailableError when tesseract or its language data is missing; Error on tesseract failure
 */
export async function ocrImage(image: Buffer | RawImage, opts: OcrOptions = {}): Promise<OcrResult> {
  const have = await installedLanguages();
  if (!have.size) throw new OcrUnavailableError('OCR is not available: install tesseract-ocr and its language packages.');
  // A reduction happens while decoding; an enlargement when preparing (after the text-size estimate).
  let shrink = Math.min(1, opts.scale ?? 1);
  let img = await traced('prep decode', () => decodeImage(image, shrink));
  const scale = opts.scale === undefined
    ? await traced('prep line-height', async () => defaultScale(img))
    : opts.maxScale ? await traced('prep line-height', async () => fitScale(img, opts.scale!, shrink, opts.maxScale!)) : opts.scale;
  // Raised above a reduction (small print on a 600-dpi scan): reduce the original less, rather than
  // enlarge the reduced picture.
  if (Math.min(1, scale) > shrink) {
    shrink = Math.min(1, scale);
    img = await traced('prep decode', () => decodeImage(image, shrink));
  }
  const prepScale = scale / shrink;
  const prepared = await traced('prep scale', () => prepareForOcr(img, prepScale));
  const { best, page, rotated } = await recognise(img, prepared, prepScale, have, opts);
  let widthPt = opts.widthPt ?? img.width / shrink;
  let heightPt = opts.heightPt ?? img.height / shrink;
  if (rotated % 180) [widthPt, heightPt] = [heightPt, widthPt];
  const words = best.words.filter((w) => w.conf >= 10 || [...w.text].length > 1);
  const heights = words.map((w) => w.height).sort((a, b) => a - b);
  return {
    runs: toRuns(words, page.width, page.height, widthPt, heightPt),
    confidence: best.confidence,
    langs: best.langs,
    chars: best.chars,
    wordHeightPx: heights[Math.floor(heights.length / 2)] ?? 0,
    widthPt,
    heightPt,
    scale,
    inverted: page.inverted,
  };
}
