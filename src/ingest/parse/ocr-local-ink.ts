// Light-on-dark pictures for OCR: diagrams, slides and dark-theme screenshots mix white text
// on black, white text on coloured boxes and black text on white cards in one picture. One global
// inversion makes only some of them dark-on-light (a luminance inversion turns the white card black
// and leaves white-on-blue text on a mid grey that tesseract's global Otsu threshold merges with its
// box). Here every pixel becomes ink by how far its colour is from the colour of the background around
// it, whatever the polarity: the local background is the median colour of a window a few text lines
// wide (the picture sampled every 8 px, then a 5 x 5 median: 40 px, about two lines at the ~20 px the
// OCR scales text lines to), and ink = the largest per-channel difference from it, drawn black on white.
// White on black, white on blue, black on white and orange on black all come out black on white.
// Differences up to DEFAULT_FLOOR (32) are dropped (shading, gradients, the soft halo where two regions
// meet), the rest is stretched to full contrast. Measured on ../shared/data/docs/html/example_image_01.png and
// the rejected alternatives: docs/ocr.md ("Light-on-dark pictures").
import sharp from 'sharp';

/** Sampling step (px) of the background estimate. */
const BLOCK = 8;
/** Median window of the background estimate, in samples (5 x 8 px = 40 px). */
const MEDIAN = 5;

export interface LocalInkOptions {
  /** Colour difference (0-255, largest channel) up to which a pixel counts as background; default 32. */
  floor?: number;
}

/**
 * Default floor, measured (docs/ocr.md): 0, 32, 64, 96 and 128 read 29, 31, 25, 30 and 30 labels of
 * the diagram over four scales, but on the data set's pictures drawn white on black only 32 kept the
 * Chinese (17% of its words; 0 at 0, 96 and 128) and Japanese (67%; 0 and 33%) ones; dim grey text
 * (#606060 on black) still comes out as mid grey.
 */
export const DEFAULT_FLOOR = 32;

/**
 * Grey picture (1 byte a pixel, black ink on white) of how far each pixel's colour is from its local
 * background colour.
 * @param rgb 8-bit RGB pixels, `width` x `height`
 * @returns `width * height` bytes: 255 where the colour is within `floor` of the local background,
 *   darker linearly with the difference above it (0 at a difference of 255)
 */
export async function localInk(rgb: Buffer, width: number, height: number, opts: LocalInkOptions = {}): Promise<Buffer> {
  const floor = Math.min(254, Math.max(0, opts.floor ?? DEFAULT_FLOOR));
  const raw = { width, height, channels: 3 as const };
  const sw = Math.max(1, Math.round(width / BLOCK));
  const sh = Math.max(1, Math.round(height / BLOCK));
  const samples = await sharp(rgb, { raw }).resize(sw, sh, { kernel: 'nearest', fit: 'fill' }).median(MEDIAN).raw().toBuffer();
  // Bilinear ('linear': in sharp 0.33's resize, missing from its KernelEnum type) so that the background
  // changes smoothly between samples.
  const bg = await sharp(samples, { raw: { width: sw, height: sh, channels: 3 } })
    .resize(width, height, { kernel: 'linear' as keyof sharp.KernelEnum, fit: 'fill' }).raw().toBuffer();
  const out = Buffer.allocUnsafe(width * height);
  const gain = 255 / (255 - floor);
  for (let i = 0, j = 0; j < out.length; i += 3, j++) {
    const dr = rgb[i] > bg[i] ? rgb[i] - bg[i] : bg[i] - rgb[i];
    const dg = rgb[i + 1] > bg[i + 1] ? rgb[i + 1] - bg[i + 1] : bg[i + 1] - rgb[i + 1];
    const db = rgb[i + 2] > bg[i + 2] ? rgb[i + 2] - bg[i + 2] : bg[i + 2] - rgb[i + 2];
    const d = dr > dg ? (dr > db ? dr : db) : dg > db ? dg : db;
    out[j] = d <= floor ? 255 : 255 - Math.min(255, Math.round((d - floor) * gain));
  }
  return out;
}
