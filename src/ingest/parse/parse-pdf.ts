// PDF parser over the text layer, using pdfjs-dist's legacy (Node) build. In Node pdfjs runs its
// "worker" code in the calling thread (a fake worker; no worker file or thread is set up), so parsing is
// CPU work on the caller's thread. Per page: text items -> lines in reading order (pdf-layout.ts) ->
// blocks for the whole document (pdf-blocks.ts). Title: the Info dictionary's Title when it looks like a
// title, else the first level-1 heading on page 1. Images are counted, not extracted: image XObjects
// (minus soft masks) are counted from the file's object dictionaries, which PDF never compresses for
// streams; walking every page's operator list instead costs ~0.45 s more on tracemonkey.pdf (pdfjs
// decodes each image to build it). Scanned PDFs (no text layer) are refused: OCR is not supported yet.
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { linesToBlocks, dropPageFurniture } from './pdf-blocks.ts';
import { pageLines, type Line, type TextRun } from './pdf-layout.ts';
import { ParseError, type ParsedDocument } from './types.ts';

const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const STANDARD_FONTS = path.join(pdfjsRoot, 'standard_fonts') + path.sep;
const CMAPS = path.join(pdfjsRoot, 'cmaps') + path.sep;

/** Count of image XObjects in the file (objects with /Subtype /Image, minus those used as /SMask). */
export function countPdfImages(data: Buffer): number {
  const text = data.toString('latin1');
  const images = text.match(/\/Subtype\s*\/Image\b/g)?.length ?? 0;
  const masks = new Set(text.match(/\/SMask\s+\d+\s+\d+\s+R/g) ?? []).size;
  return Math.max(0, images - masks);
}

/** Info Title unless it is empty, a file name, or an authoring-tool placeholder. */
function sensibleTitle(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const t = raw.replace(/^Microsoft (Word|PowerPoint|Excel) - /i, '').replace(/\s+/g, ' ').trim();
  if (t.length < 4 || !/\p{L}{2}/u.test(t)) return undefined;
  if (/\.(pdf|docx?|dvi|ps|tex|indd|pptx?|xlsx?|rtf|txt)$/i.test(t)) return undefined;
  if (/^(untitled|title|document\d*|slide \d+|no title|unknown)$/i.test(t)) return undefined;
  return t;
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

async function openPdf(data: Buffer): Promise<PDFDocumentProxy> {
  try {
    return await getDocument({
      data: new Uint8Array(data), // pdfjs takes ownership of (detaches) the array it is given
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

/**
 * Parse a PDF's text layer into blocks with 1-based pages.
 * Throws ParseError 422 `encrypted_document` (password needed), 415 `unreadable_document` (not a PDF
 * or damaged beyond recovery), 422 `no_extractable_text` (no text layer: scanned pages).
 */
export async function parsePdf(data: Buffer): Promise<ParsedDocument> {
  const doc = await openPdf(data);
  try {
    const pages = doc.numPages;
    const info = (await doc.getMetadata().catch(() => null))?.info as Record<string, unknown> | undefined;
    const lines: Line[] = [];
    const heights = new Map<number, number>();
    let readablePages = 0;
    for (let n = 1; n <= pages; n++) {
      try {
        const page = await doc.getPage(n);
        const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
        const runs = (content.items as TextItem[]).map(toRun).filter((r): r is TextRun => r !== null);
        heights.set(n, page.view[3]);
        lines.push(...pageLines(runs, n, page.view));
        page.cleanup();
        readablePages++;
      } catch {
        // A damaged page is skipped; the rest of the document is still worth indexing.
      }
    }
    if (!readablePages) throw new ParseError(415, 'unreadable_document', 'No page of the PDF could be read.');
    const blocks = linesToBlocks(dropPageFurniture(lines, heights, pages));
    if (!blocks.some((b) => /[\p{L}\p{N}]/u.test(b.text))) {
      throw new ParseError(
        422,
        'no_extractable_text',
        'The PDF has no extractable text layer (scanned pages need OCR, not supported yet).',
      );
    }
    const firstPageH1 = blocks.find((b) => b.kind === 'heading' && b.page === 1 && b.level === 1)?.text;
    const title = sensibleTitle(info?.Title) ?? firstPageH1 ?? blocks.find((b) => b.kind === 'heading')?.text;
    return { title, pages, blocks, images: [], imageCount: countPdfImages(data) };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}
