// Image parser (PNG, JPEG, TIFF, WebP): the picture is read by OCR (ocr.ts) and its text laid out with
// the PDF layout code (reading order, paragraphs, headings by size), as one page. The picture itself
// is the document's one figure: it is kept as an image asset (re-encoded as PNG, at most 1600 px on the
// long side, when it is a TIFF or larger than that) and referenced as `[IMAGE: name]` before the text.
// A multi-page TIFF is read page by page (at most the OCR page limit). Sharp (libvips) decodes all
// formats; a file it cannot decode fails with 415 unreadable_document.
import path from 'node:path';
import sharp from 'sharp';
import { parseLimits } from '../isolation/limits.ts';
import { ocrImage, OcrUnavailableError, rereadScale } from './ocr.ts';
import { linesToBlocks } from './pdf-blocks.ts';
import { pageLines, type Line } from './pdf-layout.ts';
import { ParseError, type ImageAsset, type ParsedDocument } from './types.ts';

/** Long side (px) up to which a picture is kept as is as its figure asset; larger ones are downscaled, as PDF figures are (pdf-images.ts). */
const MAX_SIDE = 1600;
const WEB_FORMATS = new Set(['png', 'jpeg', 'webp']);
const MEDIA: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** The picture as a figure asset: kept as is when browsers show it and it is small, else PNG. */
async function figureAsset(data: Buffer, format: string, width: number, height: number, name: string): Promise<ImageAsset> {
  if (WEB_FORMATS.has(format) && Math.max(width, height) <= MAX_SIDE) {
    return { name: `${name}.${format === 'jpeg' ? 'jpg' : format}`, mediaType: MEDIA[format], data, page: 1 };
  }
  const png = await sharp(data, { limitInputPixels: 100_000_000 }).rotate()
    .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
  return { name: `${name}.png`, mediaType: 'image/png', data: png, page: 1 };
}

/**
 * Parse an image file by OCR.
 * @param filename used to name the figure asset
 * @throws ParseError 415 unreadable_document (not a decodable image), 422 no_extractable_text (no text
 *         found, or OCR not installed)
 */
export async function parseImage(data: Buffer, filename = 'image'): Promise<ParsedDocument> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(data, { limitInputPixels: 100_000_000 }).metadata();
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `The image could not be decoded: ${(err as Error).message}`);
  }
  const format = meta.format ?? 'unknown';
  const pages = Math.max(1, Math.min(meta.pages ?? 1, parseLimits().maxOcrPages));
  const w = meta.width ?? 1000;
  const h = meta.pageHeight ?? meta.height ?? 1000;
  const readPage = async (p: number): Promise<Line[]> => {
    const img = pages > 1 ? await sharp(data, { page: p, limitInputPixels: 100_000_000 }).png().toBuffer() : data;
    try {
      let result = await ocrImage(img);
      // Text too small for tesseract at the default scale: read it again larger (at most 3×, 5,000 px).
      const larger = rereadScale(result, Math.min(3, 5000 / Math.max(w, h)));
      if (larger) result = await ocrImage(img, { scale: larger });
      return pageLines(result.runs, p + 1, [0, 0, result.widthPt, result.heightPt]);
    } catch (err) {
      if (err instanceof OcrUnavailableError) throw new ParseError(422, 'no_extractable_text', err.message);
      throw err;
    }
  };
  // Pages are OCR'd side by side (tesseract runs bounded by ocr-tesseract.ts) by up to twice
  // `ocrConcurrency` readers, each taking the next page when done (no batch waits for its slowest
  // page), and kept in order.
  const perPage: Line[][] = new Array(pages);
  let next = 0;
  const reader = async () => {
    for (let p = next++; p < pages; p = next++) perPage[p] = await readPage(p);
  };
  await Promise.all(Array.from({ length: Math.min(pages, 2 * Math.max(1, parseLimits().ocrConcurrency)) }, reader));
  const lines = perPage.flat();
  const base = path.basename(filename).replace(/\.[^.]+$/, '').replace(/[^\w.-]+/g, '_').slice(0, 80) || 'image';
  const asset = await figureAsset(data, format, meta.width ?? 0, meta.height ?? 0, base);
  const blocks = linesToBlocks(lines);
  if (!blocks.length) throw new ParseError(422, 'no_extractable_text', 'OCR found no text in the image.');
  blocks.unshift({ kind: 'image', text: `[IMAGE: ${asset.name}]`, page: 1, assetName: asset.name });
  return { pages, blocks, images: [asset], imageCount: 1 };
}
