// OCR of PDF pages that have no text layer (scans, photographed pages, "print to image" exports).
// The page is rendered by pdfjs onto an @napi-rs/canvas canvas (prebuilt native binary shipped in the
// npm package; pdfjs's Node build uses it by default) at 300 dpi, capped at 5,000 px on the long side
// and 25 Mpx in all, encoded as PNG and read by ocr.ts. The rendered image only lives in memory for
// the OCR: page images are never stored. Runs come back in the page's own coordinates.
import { createCanvas } from '@napi-rs/canvas';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ocrImage, type OcrResult } from './ocr.ts';

const DPI = 300;
const MAX_SIDE = 5000;
const MAX_PIXELS = 25_000_000;

/** True when a page's text layer is (nearly) empty: fewer than 10 letters or digits. */
export function lacksTextLayer(text: string): boolean {
  return (text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) < 10;
}

/** Render a page to PNG at up to 300 dpi; returns the PNG and its pixel size. */
export async function renderPage(page: PDFPageProxy): Promise<{ png: Buffer; width: number; height: number }> {
  const base = page.getViewport({ scale: 1 });
  let scale = DPI / 72;
  scale = Math.min(scale, MAX_SIDE / Math.max(base.width, base.height));
  scale = Math.min(scale, Math.sqrt(MAX_PIXELS / (base.width * base.height)));
  const viewport = page.getViewport({ scale });
  const canvas = createCanvas(Math.max(1, Math.ceil(viewport.width)), Math.max(1, Math.ceil(viewport.height)));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport, canvas: canvas as unknown as HTMLCanvasElement }).promise;
  const png = await canvas.encode('png');
  return { png, width: canvas.width, height: canvas.height };
}

/**
 * OCR one page into runs in PDF user space (points, y up, offset by the page box origin).
 * @throws OcrUnavailableError when tesseract is missing; Error when rendering or OCR fails
 */
export async function ocrPage(page: PDFPageProxy, signal?: AbortSignal): Promise<OcrResult> {
  const [vx0, vy0] = page.view;
  const { png } = await renderPage(page);
  // The rendered image follows the page's /Rotate, so its size in points is the rotated viewport's.
  const base = page.getViewport({ scale: 1 });
  const result = await ocrImage(png, { widthPt: base.width, heightPt: base.height, signal });
  for (const r of result.runs) {
    r.x += vx0;
    r.y += vy0;
  }
  return result;
}
