// PDF parser, using pdfjs-dist's legacy (Node) build. In Node pdfjs runs its "worker" code in the
// calling thread (a fake worker), so parsing is CPU work on the caller's thread — the ingest pipeline
// runs it in an isolated child process (src/ingest/isolation). Per page:
//   text runs (getTextContent) + graphics (getOperatorList -> pdf-graphics.ts: rules, image placements;
//      pdf-worker.ts passes only the operators it reads out of pdfjs's worker);
//      each run's weight from its font's name once the operator list has loaded the fonts (markBold)
//   -> no text layer? render + OCR the page (pdf-ocr.ts), the OCR'd words become the runs; the OCR of
//      several pages runs at once (tesseract runs up to the parse limit ocrConcurrency, pages up to
//      twice that), the rest stays in page order
//   -> ruled tables (pdf-tables.ts) become Markdown table blocks, their runs leave the text flow
//   -> image XObjects become PNG figure assets (pdf-images.ts) referenced as `[IMAGE: name]`
//   -> lines in reading order (pdf-layout.ts) -> blocks for the whole document (pdf-blocks.ts).
// Title: the Info dictionary's Title when it looks like a title, else the first level-1 heading on
// page 1. A figure's alt text is its caption ("Figure 3: …") when one follows it. Images repeated on
// 3+ pages (logos) and the images of an OCR'd (scanned) page are not figures.
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument, type PDFDocumentProxy, type PDFPageProxy, type PDFWorker } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { parseLimits } from '../isolation/limits.ts';
import { OcrUnavailableError } from './ocr.ts';
import { linesToBlocks, dropPageFurniture, bodyFontSize } from './pdf-blocks.ts';
import { repairSplitWords } from './pdf-word-repair.ts';
import { pageGraphics, type PageGraphics } from './pdf-graphics.ts';
import { graphicsPdfWorker } from './pdf-worker.ts';
import { extractPageImages, figurePlacements, pageScan } from './pdf-images.ts';
import { pageLines, type Line, type TextRun } from './pdf-layout.ts';
import { lacksTextLayer, ocrPage } from './pdf-ocr.ts';
import { findTables } from './pdf-tables.ts';
import { ParseError, type Block, type ImageAsset, type ParsedDocument } from './types.ts';
import { addParseTime, reportPages } from './parse-progress.ts';

const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const STANDARD_FONTS = path.join(pdfjsRoot, 'standard_fonts') + path.sep;
const CMAPS = path.join(pdfjsRoot, 'cmaps') + path.sep;

/** Info Title unless it is empty, a file name, or an authoring-tool placeholder. */
function sensibleTitle(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const t = raw.replace(/^Microsoft (Word|PowerPoint|Excel) - /i, '').replace(/\s+/g, ' ').trim();
  if (t.length < 4 || !/\p{L}{2}/u.test(t)) return undefined;
  if (/\.(pdf|docx?|dvi|ps|tex|indd|pptx?|xlsx?|rtf|txt)$/i.test(t)) return undefined;
  if (/^(untitled|title|document\d*|slide \d+|no title|unknown)$/i.test(t)) return undefined;
  return t;
}

/** Font names of bold weights ("TimesNewRomanPS-BoldMT", "Arial-BoldItalicMT", "Helvetica-Black", "SemiBold"). */
const BOLD_FONT = /bold|black|heavy|semibold|demi/i;

/**
 * Mark each run bold or not from its font's name (pdfjs keeps the loaded fonts, with their PostScript
 * names, in the page's commonObjs once the operator list has been read). A font that cannot be looked up
 * leaves the run unknown.
 */
function markBold(page: PDFPageProxy, items: TextItem[], runs: Array<TextRun | null>): void {
  const weight = new Map<string, boolean | undefined>();
  items.forEach((item, i) => {
    const run = runs[i];
    if (!run) return;
    if (!weight.has(item.fontName)) {
      let name: unknown;
      try { name = (page.commonObjs.get(item.fontName) as { name?: unknown } | undefined)?.name; } catch { name = undefined; }
      weight.set(item.fontName, typeof name === 'string' ? BOLD_FONT.test(name) : undefined);
    }
    const bold = weight.get(item.fontName);
    if (bold !== undefined) run.bold = bold;
  });
}

function toRun(item: TextItem): TextRun | null {
  if (!item.str) return null;
  const [a, b, c, d, e, f] = item.transform as number[];
  const size = Math.hypot(c, d) || item.height || Math.hypot(a, b);
  if (!size) return null;
  return {
    str: item.str, x: e, y: f, width: item.width, size: Math.round(size * 10) / 10,
    hasEOL: item.hasEOL, rotated: Math.abs(b) > Math.abs(a) * 0.2 || a < 0,
  };
}

function mapOpenError(err: unknown): ParseError {
  const name = (err as { name?: string })?.name;
  const message = (err as Error)?.message ?? String(err);
  if (name === 'PasswordException') {
    return new ParseError(422, 'encrypted_document', 'The PDF is password-protected; upload it without a password.');
  }
  return new ParseError(415, 'unreadable_document', `The PDF could not be read: ${message}`);
}

async function openPdf(data: Buffer, worker: PDFWorker): Promise<PDFDocumentProxy> {
  try {
    return await getDocument({
      data: new Uint8Array(data), // pdfjs takes ownership of (detaches) the array it is given
      worker,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      standardFontDataUrl: STANDARD_FONTS,
      cMapUrl: CMAPS,
      cMapPacked: true,
      verbosity: 0,
    }).promise;
  } catch (err) {
    throw mapOpenError(err);
  }
}

const CAPTION = /^(fig(ure)?\.?|abbildung|image|photo|chart|graph|exhibit|illustration)\s*\d+/i;

interface PageResult {
  lines: Line[];
  height: number;
  images: Array<{ asset: ImageAsset; objId: string | null }>;
  ocr: boolean;
}

interface DocState {
  seenImages: Set<string>;
  imagePages: Map<string, Set<number>>;
  imageSeq: number;
  ocrPages: number;
  ocrUnavailable: boolean;
}

function blockLine(block: Block, x0: number, x1: number, top: number, size: number): Line {
  return { text: '', x0, x1, y: top, size, page: block.page, column: 0, band: 0, block };
}

interface PreparedPage {
  page: PDFPageProxy;
  n: number;
  runs: TextRun[];
  gfx: PageGraphics;
  /** OCR under way (scanned page): its runs, or null when OCR failed or is unavailable. */
  ocr: Promise<TextRun[] | null> | null;
}

/**
 * First half of reading a page, in page order: text runs and graphics; a page without a text layer
 * starts its OCR (rendering + tesseract) here and does not wait for it, so the next pages' OCR can run
 * at the same time (tesseract processes are bounded by ocr-tesseract.ts).
 */
async function preparePage(page: PDFPageProxy, n: number, st: DocState): Promise<PreparedPage> {
  const limits = parseLimits();
  const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
  const items = content.items as TextItem[];
  const mapped = items.map(toRun);
  const ops = await page.getOperatorList();
  markBold(page, items, mapped);
  const runs = mapped.filter((r): r is TextRun => r !== null);
  const gfx = pageGraphics(ops.fnArray, ops.argsArray as unknown[][]);
  let ocr: PreparedPage['ocr'] = null;
  if (lacksTextLayer(runs.map((r) => r.str).join('')) && gfx.images.length && limits.ocr && !st.ocrUnavailable && st.ocrPages < limits.maxOcrPages) {
    st.ocrPages++;
    ocr = pageScan(page, gfx.images)
      .then((scan) => ocrPage(page, { scan }))
      .then((r) => r.runs, (err) => {
        if (err instanceof OcrUnavailableError) st.ocrUnavailable = true;
        return null;
      });
  }
  return { page, n, runs, gfx, ocr };
}

/** Second half, in page order: OCR'd runs (when any), tables, figures and lines. */
async function finishPage(prep: PreparedPage, st: DocState): Promise<PageResult> {
  const { page, n, gfx } = prep;
  const limits = parseLimits();
  const ocrRuns = prep.ocr ? await prep.ocr : null;
  const ocr = ocrRuns !== null;
  const runs = ocrRuns ?? prep.runs;
  const body = bodyFontSize(pageLines(runs, n, page.view)) || 10;
  const extra: Line[] = [];
  let t0 = performance.now();
  const tables = findTables(runs, gfx.horizontal, gfx.vertical, body);
  addParseTime('tables', performance.now() - t0);
  const used = new Set<number>();
  for (const t of tables) {
    for (const i of t.used) used.add(i);
    extra.push(blockLine({ kind: 'table', text: t.markdown, page: n }, t.x0, t.x1, t.top, body));
  }
  // An OCR'd page is a scan: its images are the page itself, whose text the OCR already read.
  const wanted = ocr ? [] : figurePlacements(gfx.images);
  for (const p of wanted) if (p.objId) st.imagePages.set(p.objId, (st.imagePages.get(p.objId) ?? new Set()).add(n));
  const images: PageResult['images'] = [];
  const room = limits.maxImages - st.imageSeq;
  t0 = performance.now();
  const extracted = room > 0 ? await extractPageImages(page, wanted.slice(0, room), st.seenImages) : [];
  addParseTime('figures', performance.now() - t0);
  for (const img of extracted) {
    const name = `image-${++st.imageSeq}.png`;
    images.push({ asset: { name, mediaType: 'image/png', data: img.png, page: n }, objId: img.placement.objId });
    const p = img.placement;
    extra.push(blockLine({ kind: 'image', text: `[IMAGE: ${name}]`, page: n, assetName: name }, p.x0, p.x1, p.y1, body));
  }
  const textRuns = runs.filter((_, i) => !used.has(i));
  return { lines: pageLines(textRuns, n, page.view, extra), height: page.view[3], images, ocr };
}

/** Caption after (or just before) each image block becomes the asset's alt text. */
function attachCaptions(blocks: Block[], images: ImageAsset[]): void {
  const byName = new Map(images.map((a) => [a.name, a]));
  blocks.forEach((b, i) => {
    if (b.kind !== 'image' || !b.assetName) return;
    const asset = byName.get(b.assetName);
    if (!asset) return;
    const near = [blocks[i + 1], blocks[i + 2], blocks[i - 1]].find((c) => c && c.kind === 'paragraph' && CAPTION.test(c.text));
    if (near) asset.alt = near.text.slice(0, 300);
  });
}

/**
 * Parse a PDF into blocks with 1-based pages, figure assets and Markdown tables.
 * Throws ParseError 422 `encrypted_document` (password needed), 415 `unreadable_document` (not a PDF
 * or damaged beyond recovery), 413 `document_too_large` (more pages than the limit, default 2,000),
 * 422 `no_extractable_text` (no text layer and OCR found nothing or is unavailable).
 */
export async function parsePdf(data: Buffer): Promise<ParsedDocument> {
  const worker = await graphicsPdfWorker();
  let doc: PDFDocumentProxy;
  try {
    doc = await openPdf(data, worker);
  } catch (err) {
    worker.destroy();
    throw err;
  }
  try {
    const pages = doc.numPages;
    const limits = parseLimits();
    if (pages > limits.maxPages) {
      throw new ParseError(413, 'document_too_large', `The PDF has ${pages} pages; at most ${limits.maxPages} are accepted.`);
    }
    const info = (await doc.getMetadata().catch(() => null))?.info as Record<string, unknown> | undefined;
    const lines: Line[] = [];
    const heights = new Map<number, number>();
    const st: DocState = { seenImages: new Set(), imagePages: new Map(), imageSeq: 0, ocrPages: 0, ocrUnavailable: false };
    const extracted: PageResult['images'] = [];
    let readablePages = 0;
    let pagesDone = 0;
    // Pages are read in order; up to 2 × `ocrConcurrency` of them wait for their OCR at once, so that
    // one slow page does not leave a tesseract slot idle (a 10-page scan: two tesseract processes ran
    // 57% of the time with a window of `ocrConcurrency`, 88% with twice that; bench:ocr --multipage).
    const window = Math.max(1, 2 * limits.ocrConcurrency);
    const pending: PreparedPage[] = [];
    const finish = async (p: PreparedPage) => {
      try {
        const r = await finishPage(p, st);
        heights.set(p.n, r.height);
        lines.push(...r.lines);
        extracted.push(...r.images);
        readablePages++;
      } catch (err) {
        if (err instanceof ParseError) throw err;
        // A damaged page is skipped; the rest of the document is still worth indexing.
      } finally {
        p.page.cleanup();
        reportPages(++pagesDone, pages);
      }
    };
    for (let n = 1; n <= pages; n++) {
      let page: PDFPageProxy | undefined;
      try {
        page = await doc.getPage(n);
        pending.push(await preparePage(page, n, st));
      } catch (err) {
        page?.cleanup();
        if (err instanceof ParseError) throw err;
      }
      while (pending.length > window) await finish(pending.shift()!);
    }
    while (pending.length) await finish(pending.shift()!);
    if (!readablePages) throw new ParseError(415, 'unreadable_document', 'No page of the PDF could be read.');
    // Images painted on 3+ pages are running decoration (logos): drop them and their references.
    const decorative = new Set(extracted.filter((e) => e.objId && (st.imagePages.get(e.objId)?.size ?? 0) >= 3).map((e) => e.asset.name));
    const images = extracted.filter((e) => !decorative.has(e.asset.name)).map((e) => e.asset);
    const kept = lines.filter((l) => !(l.block?.assetName && decorative.has(l.block.assetName)));
    const blocks = repairSplitWords(linesToBlocks(dropPageFurniture(kept, heights, pages)));
    if (!blocks.some((b) => b.kind !== 'image' && /[\p{L}\p{N}]/u.test(b.text))) {
      const why = st.ocrUnavailable ? ' (OCR is not installed on this server)' : st.ocrPages ? ' (OCR found no text on its scanned pages)' : '';
      throw new ParseError(422, 'no_extractable_text', `The PDF has no extractable text${why}.`);
    }
    attachCaptions(blocks, images);
    const firstPageH1 = blocks.find((b) => b.kind === 'heading' && b.page === 1 && b.level === 1)?.text;
    const title = sensibleTitle(info?.Title) ?? firstPageH1 ?? blocks.find((b) => b.kind === 'heading')?.text;
    return { title, pages, blocks, images, imageCount: images.length };
  } finally {
    await doc.destroy().catch(() => undefined);
    worker.destroy();
  }
}
