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

/** Raw pdfjs pixels -> PNG (downscaled to MAX_SIDE), or null when the data is unusable. */
export async function encodePng(img: PdfImageData): Promise<{ png: Buffer; width: number; height: number } | null> {
  const { width, height, kind, data } = img;
  if (!data || !width || !height || width < MIN_PX || height < MIN_PX) return null;
  if (width * height * 4 > MAX_RAW_BYTES) return null;
  let channels: 1 | 3 | 4;
  let pixels: Buffer;
  if (kind === 3 || data.length === width * height * 4) {
    channels = 4;
    pixels = Buffer.from(data.buffer, data.byteOffset, width * height * 4);
  } else if (kind === 2 || data.length === width * height * 3) {
    channels = 3;
    pixels = Buffer.from(data.buffer, data.byteOffset, width * height * 3);
  } else if (kind === 1) {
    // 1 bit per pixel, rows padded to whole bytes; a set bit is white (pdfjs convention).
    channels = 1;
    pixels = Buffer.alloc(width * height);
    const rowBytes = (width + 7) >> 3;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = (data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1;
        pixels[y * width + x] = bit ? 255 : 0;
      }
    }
  } else return null;
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
