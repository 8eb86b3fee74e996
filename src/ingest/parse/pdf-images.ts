// Figure extraction for the PDF parser: the image XObjects (and inline images) a page paints, as
// found by pdf-graphics.ts, are read from pdfjs's decoded object store and encoded as PNG with sharp
// (libvips; already a dependency of the stack). Images are taken whole (no cropping to the visible
// part). Left out as decoration: images shown smaller than 24 pt or smaller than 16 px, stencil masks,
// and images repeated on 3 or more pages (logos in running headers). An image painted several times
// is extracted once. Large images are downscaled to 1600 px on the long side, which keeps a figure
// legible while bounding what the blob store and search responses carry.
import sharp from 'sharp';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { ImagePlacement } from './pdf-graphics.ts';
import type { RawImage } from './ocr-image-prep.ts';

/** Decoded image as pdfjs hands it over (ImageKind 1 = 1 bit grey, 2 = RGB, 3 = RGBA). */
interface PdfImageData {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

export interface PageImage {
  placement: ImagePlacement;
  png: Buffer;
  width: number;
  height: number;
}

/** Decoration bounds and the downscaling of figures (see the header). */
const MIN_SHOWN_PT = 24;
const MIN_PX = 16;
const MAX_SIDE = 1600;
/** Decoded images larger than this (bytes of raw pixels) are skipped, not encoded. */
const MAX_RAW_BYTES = 120 * 1024 * 1024;

/** Placements worth extracting as figures (see the header for the rules). */
export function figurePlacements(placements: ImagePlacement[]): ImagePlacement[] {
  return placements.filter((p) => p.x1 - p.x0 >= MIN_SHOWN_PT && p.y1 - p.y0 >= MIN_SHOWN_PT);
}

function lookup(page: PDFPageProxy, id: string): Promise<PdfImageData | null> {
  const store = (id.startsWith('g_') ? page.commonObjs : page.objs) as unknown as {
    get(id: string, cb?: (data: unknown) => void): unknown;
    has(id: string): boolean;
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 5000);
    try {
      store.get(id, (data) => {
        clearTimeout(timer);
        resolve((data as PdfImageData) ?? null);
      });
    } catch {
      clearTimeout(timer);
      resolve(null);
    }
  });
}

/** Raw pdfjs pixels as RGBA / RGB / grey bytes, or null when the data is unusable. */
export function rawPixels(img: PdfImageData): RawImage | null {
  const { width, height, kind, data } = img;
  if (!data || !width || !height || width < MIN_PX || height < MIN_PX) return null;
  if (Math.max(data.length, width * height) > MAX_RAW_BYTES) return null;
  if (kind === 3 || data.length === width * height * 4) {
    return { data: new Uint8Array(data.buffer, data.byteOffset, width * height * 4), width, height, channels: 4 };
  }
  if (kind === 2 || data.length === width * height * 3) {
    return { data: new Uint8Array(data.buffer, data.byteOffset, width * height * 3), width, height, channels: 3 };
  }
  if (kind !== 1) return null;
  // 1 bit per pixel, rows padded to whole bytes; a set bit is white (pdfjs convention).
  const pixels = new Uint8Array(width * height);
  const rowBytes = (width + 7) >> 3;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const bit = (data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1;
      pixels[y * width + x] = bit ? 255 : 0;
    }
  }
  return { data: pixels, width, height, channels: 1 };
}

/** Raw pdfjs pixels -> PNG (downscaled to MAX_SIDE), or null when the data is unusable. */
export async function encodePng(img: PdfImageData): Promise<{ png: Buffer; width: number; height: number } | null> {
  const raw = rawPixels(img);
  if (!raw) return null;
  const { width, height, channels } = raw;
  const pixels = Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength);
  let pipeline = sharp(pixels, { raw: { width, height, channels } });
  let w = width;
  let h = height;
  if (Math.max(width, height) > MAX_SIDE) {
    const f = MAX_SIDE / Math.max(width, height);
    w = Math.max(1, Math.round(width * f));
    h = Math.max(1, Math.round(height * f));
    pipeline = pipeline.resize({ width: w, height: h });
  }
  const png = await pipeline.png({ compressionLevel: 6 }).toBuffer();
  return { png, width: w, height: h };
}

/**
 * Decode and encode the given placements of one page (call after page.getOperatorList(), which makes
 * pdfjs decode the images into its object store). `skip` holds object ids not to extract again.
 */
export async function extractPageImages(page: PDFPageProxy, placements: ImagePlacement[], skip: Set<string>): Promise<PageImage[]> {
  const out: PageImage[] = [];
  for (const p of placements) {
    if (p.objId && skip.has(p.objId)) continue;
    if (p.objId) skip.add(p.objId);
    const data = p.objId ? await lookup(page, p.objId) : (p.inline as PdfImageData | undefined) ?? null;
    if (!data) continue;
    try {
      const enc = await encodePng(data);
      if (enc) out.push({ placement: p, ...enc });
    } catch {
      // An image sharp cannot encode is left out; the text is still worth indexing.
    }
  }
  return out;
}

/** The scan behind a page without a text layer (see pageScan). */
export interface PageScan {
  /** Resolution of the page's largest image as painted, pixels per inch. */
  dpi: number;
  /**
   * Its decoded pixels when it alone is the page: covers >= 90% of it, upright (same aspect ratio as
   * the page) and the page is not rotated. OCR can then read them without rendering the page.
   */
  pixels: RawImage | null;
}

/**
 * The scan of a page: resolution of the largest image it paints (geometric mean over both axes, so
 * an image painted sideways still gives its true resolution) and, for a page that is just that image,
 * its pixels. Null when the page paints no readable image. Call after page.getOperatorList().
 */
export async function pageScan(page: PDFPageProxy, placements: ImagePlacement[]): Promise<PageScan | null> {
  const area = (p: ImagePlacement) => (p.x1 - p.x0) * (p.y1 - p.y0);
  const largest = [...placements].sort((a, b) => area(b) - area(a))[0];
  if (!largest || area(largest) <= 0) return null;
  const data = largest.objId ? await lookup(page, largest.objId) : (largest.inline as PdfImageData | undefined) ?? null;
  if (!data?.width || !data.height) return null;
  const dpi = Math.sqrt((data.width * data.height) / (area(largest) / (72 * 72)));
  const [vx0, vy0, vx1, vy1] = page.view;
  const pageW = vx1 - vx0;
  const pageH = vy1 - vy0;
  const upright = Math.abs((data.width / data.height) / (pageW / pageH) - 1) < 0.03;
  const whole = placements.length === 1 && area(largest) >= 0.9 * pageW * pageH && upright && !page.rotate;
  return { dpi, pixels: whole ? rawPixels(data) : null };
}
