// Image preparation for OCR: every picture or rendered page becomes 8-bit RGB at the scale
// the OCR asked for, handed to tesseract as a PNG at zlib level 1 without filtering (5-20 ms to encode
// a page with sharp). Not uncompressed PPM: tesseract 5.3 reads stdin one character at a time, and the
// 3-14 MB of a PPM page cost it 0.1-0.25 s more CPU than the PNG (bench:ocr: 1.08 -> 0.89 CPU s per
// page, the same text). Colour stays: tesseract's own grey conversion and thresholding
// read coloured table headers (dark text on light blue) that a grey conversion by sharp lost.
// Light-on-dark pictures (white text on a black or dark background: slides, screenshots, diagrams)
// are redrawn as grey ink on white: tesseract's models are trained on dark text on a light background
// and read almost nothing of the original. Not one global inversion: such
// pictures mix white-on-black, white-on-colour and black-on-white text, so each pixel's ink is its
// colour difference from its local background (ocr-local-ink.ts; the diagram of
// ../shared/data/docs/html: 7 -> 8 of 15 labels, 18 -> 31 over four scales, docs/ocr.md).
// The background is what most pixels are: when the median luminance is below 128 the picture is dark.
// Low contrast needs nothing on light pictures: tesseract's own Otsu thresholding read synthetic text
// 3 grey levels from its background (#979797 on #9a9a9a), so they are not stretched or binarised here.
import sharp from 'sharp';
import { localInk } from './ocr-local-ink.ts';

/** Decoded pixels, e.g. a page rendered by pdfjs on a canvas (RGBA). */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** An RGB picture at its own size (after EXIF orientation and flattening of transparency). */
export interface RgbImage {
  data: Buffer;
  width: number;
  height: number;
}

/** What tesseract reads: PNG bytes (RGB; grey ink on white when light-on-dark), and what was done. */
export interface PreparedImage {
  png: Buffer;
  width: number;
  height: number;
  /** Scale from the decoded picture to the PNG. */
  scale: number;
  /** The picture was light-on-dark and was redrawn as ink against its local background. */
  inverted: boolean;
}

/** Largest picture decoded (100 Mpx, 300 MB as RGB): a larger one is refused instead of filling the parse child's memory. */
const LIMIT_PIXELS = 100_000_000;

/**
 * Decode an encoded picture (any format sharp reads) or raw pixels into RGB.
 * @param shrink factor <= 1 to reduce the picture by while decoding (a 600-dpi scan read at 200 dpi:
 *   every later step then works on a ninth of the pixels)
 * @throws Error when the bytes are not a decodable image
 */
export async function decodeImage(input: Buffer | RawImage, shrink = 1): Promise<RgbImage> {
  let img = Buffer.isBuffer(input)
    ? sharp(input, { limitInputPixels: LIMIT_PIXELS }).rotate() // EXIF orientation
    : sharp(input.data, { raw: { width: input.width, height: input.height, channels: input.channels }, limitInputPixels: LIMIT_PIXELS });
  if (shrink < 1) {
    const meta = Buffer.isBuffer(input) ? await sharp(input).metadata() : input;
    const swapped = Buffer.isBuffer(input) && ((meta as sharp.Metadata).orientation ?? 1) >= 5;
    const w = (swapped ? meta.height : meta.width) ?? 1;
    img = img.resize({ width: Math.max(1, Math.round(w * shrink)), kernel: 'lanczos3' });
  }
  const { data, info } = await img.flatten({ background: '#ffffff' }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}

/** The picture turned by `degrees` clockwise (90, 180, 270), e.g. upright after tesseract's OSD. */
export async function rotateImage(img: RgbImage, degrees: number): Promise<RgbImage> {
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 }, limitInputPixels: LIMIT_PIXELS })
    .rotate(degrees).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Grey level at fraction `q` (0..1) of a 256-bin histogram holding `n` pixels. */
function percentile(hist: Uint32Array, n: number, q: number): number {
  const target = n * q;
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += hist[v];
    if (seen >= target) return v;
  }
  return 255;
}

/** Median, 0.1th and 99.9th percentile of the luminance (Rec. 601; every 4th pixel is enough). */
export function lumaStats(img: RgbImage): { median: number; low: number; high: number } {
  const hist = new Uint32Array(256);
  let n = 0;
  const d = img.data;
  for (let i = 0; i + 2 < d.length; i += 12) {
    hist[(d[i] * 77 + d[i + 1] * 150 + d[i + 2] * 29) >> 8]++;
    n++;
  }
  return { median: percentile(hist, n, 0.5), low: percentile(hist, n, 0.001), high: percentile(hist, n, 0.999) };
}

/**
 * Typical height in pixels of the text lines of a picture, from horizontal ink profiles: the picture
 * is cut into 4 vertical strips (so that columns do not merge their lines), a row of a strip holds ink
 * when at least 2 of its sampled pixels are darker (lighter, on a dark picture) than halfway between
 * background and ink, and each run of such rows is one line. Runs under 4 px (rules, specks) and over
 * a quarter of the height (pictures) are ignored. Returns the median run, or null without any.
 */
export function estimateLineHeight(img: RgbImage): number | null {
  const { median, low, high } = lumaStats(img);
  const dark = median >= 128;
  const cut = dark ? (median + low) / 2 : (median + high) / 2;
  const strips = 4;
  const stripW = Math.floor(img.width / strips);
  if (stripW < 8) return null;
  const runs: number[] = [];
  for (let s = 0; s < strips; s++) {
    let run = 0;
    for (let y = 0; y <= img.height; y++) {
      let ink = 0;
      if (y < img.height) {
        const row = (y * img.width + s * stripW) * 3;
        for (let x = 0; x < stripW && ink < 2; x += 2) {
          const i = row + x * 3;
          const l = (img.data[i] * 77 + img.data[i + 1] * 150 + img.data[i + 2] * 29) >> 8;
          if (dark ? l < cut : l > cut) ink++;
        }
      }
      if (ink >= 2) run++;
      else {
        if (run >= 4 && run <= img.height / 4) runs.push(run);
        run = 0;
      }
    }
  }
  if (!runs.length) return null;
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)];
}

/**
 * Scale, redraw light-on-dark pictures as dark ink on white (localInk), and encode for tesseract (PNG:
 * RGB, or grey when redrawn).
 * @param scale resize factor (1 = as is); lanczos3 when enlarging, as tesseract wants text ~20-30 px high
 */
export async function prepareForOcr(img: RgbImage, scale = 1): Promise<PreparedImage> {
  const inverted = lumaStats(img).median < 128;
  const width = Math.max(1, Math.round(img.width * scale));
  const height = Math.max(1, Math.round(img.height * scale));
  let pipeline = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 }, limitInputPixels: LIMIT_PIXELS });
  if (width !== img.width || height !== img.height) pipeline = pipeline.resize({ width, height, kernel: 'lanczos3' });
  const { data: rgb, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  // Light on dark: ink against the local background, black on white (ocr-local-ink.ts).
  const body = inverted ? await localInk(rgb, info.width, info.height) : rgb;
  let encoder = sharp(body, { raw: { width: info.width, height: info.height, channels: inverted ? 1 : 3 } });
  if (inverted) encoder = encoder.toColourspace('b-w'); // else sharp writes one channel as RGB
  const png = await encoder.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  return { png, width: info.width, height: info.height, scale, inverted };
}
