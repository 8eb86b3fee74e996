// OCR of PDF pages that have no text layer (scans, photographed pages, "print to image" exports).
// The page is rendered by pdfjs onto an @napi-rs/canvas canvas (prebuilt native binary shipped in the
// npm package; pdfjs's Node build uses it by default) and its pixels are read by ocr.ts. The rendered
// image only lives in memory for the OCR: page images are never stored. Runs come back in the page's
// own coordinates.
// Resolution per page: 300 dpi took twice the CPU of 200 dpi and read the scans of
// ../shared/data/docs no better (docs/ocr.md), so a page is rendered at 200 dpi, or at the scan's own
// resolution when that is lower (never below 150 dpi), then enlarged up to 300 dpi when its text lines,
// measured on the pixels, are under ~20 px high (ocr.ts fitScale: one reading at the right size; a
// 10-page synthetic scan of small print took two readings a page before). When the words still come
// out small (median under 16 px high) the page is read again larger, up to 300 dpi. Always capped at
// 5,000 px on the long side and 25 Mpx.
import { createCanvas } from '@napi-rs/canvas';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ocrImage, rereadScale, type OcrResult, type RawImage } from './ocr.ts';
import type { PageScan } from './pdf-images.ts';
import { traced } from './ocr-trace.ts';

/** Rendering resolutions and caps; the file header gives the measurements behind them (docs/ocr.md). */
const BASE_DPI = 200;
const MIN_DPI = 150;
const MAX_DPI = 300;
const MAX_SIDE = 5000;
const MAX_PIXELS = 25_000_000;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/gu;

/** True when a page's text layer is (nearly) empty: fewer than 10 letters or digits (it stops counting at 10). */
export function lacksTextLayer(text: string): boolean {
  LETTER_OR_DIGIT.lastIndex = 0;
  let n = 0;
  while (n < 10 && LETTER_OR_DIGIT.exec(text)) n++;
  return n < 10;
}

/**
 * DPI to render a scanned page at first.
 * @param nativeDpi resolution of the page's scan image (pdf-images.ts scanDpi), null when unknown
 */
export function renderDpi(nativeDpi: number | null): number {
  if (!nativeDpi || !Number.isFinite(nativeDpi)) return BASE_DPI;
  return Math.round(Math.min(BASE_DPI, Math.max(MIN_DPI, nativeDpi)));
}

/** `dpi`, lowered as far as the page needs to stay within 5,000 px a side and 25 Mpx. */
function cappedDpi(page: PDFPageProxy, dpi: number): number {
  const base = page.getViewport({ scale: 1 });
  const scale = Math.min(dpi / 72, MAX_SIDE / Math.max(base.width, base.height), Math.sqrt(MAX_PIXELS / (base.width * base.height)));
  return scale * 72;
}

/** Render a page at up to `dpi` (default 300) into raw RGBA pixels. */
export async function renderPage(page: PDFPageProxy, dpi = MAX_DPI): Promise<RawImage & { dpi: number }> {
  const scale = cappedDpi(page, dpi) / 72;
  const viewport = page.getViewport({ scale });
  const canvas = createCanvas(Math.max(1, Math.ceil(viewport.width)), Math.max(1, Math.ceil(viewport.height)));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport, canvas: canvas as unknown as HTMLCanvasElement }).promise;
  const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  return { data: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength), width: canvas.width, height: canvas.height, channels: 4, dpi: scale * 72 };
}

/**
 * OCR one page into runs in PDF user space (points, y up, offset by the page box origin).
 * @param opts.scan the page's scan (pdf-images.ts pageScan), when known: its resolution picks the
 *   render dpi, and a page that is just one upright image is read from that image's pixels, scaled
 *   to the same dpi, without rendering the page
 * @throws OcrUnavailableError when tesseract is missing; Error when rendering or OCR fails
 */
export async function ocrPage(page: PDFPageProxy, opts: { scan?: PageScan | null; signal?: AbortSignal } = {}): Promise<OcrResult> {
  const [vx0, vy0] = page.view;
  // The rendered image follows the page's /Rotate, so its size in points is the rotated viewport's.
  const base = page.getViewport({ scale: 1 });
  const scan = opts.scan ?? null;
  const first = renderDpi(scan?.dpi ?? null);
  // The first reading goes up to 300 dpi at once when the page's text lines are small (ocr.ts
  // fitScale), so that small print rarely needs the second reading below.
  const read = async (dpi: number, upTo = dpi) => {
    const ocrOpts = { widthPt: base.width, heightPt: base.height, signal: opts.signal };
    if (scan?.pixels) return ocrImage(scan.pixels, { ...ocrOpts, scale: dpi / scan.dpi, maxScale: upTo / scan.dpi });
    const raw = await traced(`prep render ${Math.round(dpi)}dpi`, () => renderPage(page, dpi));
    return ocrImage(raw, { ...ocrOpts, scale: 1, maxScale: upTo / dpi });
  };
  let result = await read(first, Math.max(first, cappedDpi(page, MAX_DPI)));
  // rereadScale works in the image's own scale: the scan's pixels, or the rendered page at `first` dpi.
  const unit = scan?.pixels ? scan.dpi : first;
  const larger = rereadScale(result, MAX_DPI / unit);
  if (larger) result = await read(Math.min(MAX_DPI, larger * unit));
  for (const r of result.runs) {
    r.x += vx0;
    r.y += vy0;
  }
  return result;
}
