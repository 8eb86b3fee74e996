// Entry point of document parsing: picks the parser for an upload and normalises failures. The file
// extension selects the format and a cheap look at the first bytes confirms it (%PDF-, a ZIP holding
// word/, text that is not binary); without a known extension the client's media type or the bytes alone
// decide. `detectFormat` never parses, so the HTTP route can refuse unsupported uploads (400) before a
// job exists; `parseDocument` runs the format's parser and turns any library failure into a ParseError
// carrying the job status code (DESIGN.md §5: 415 unsupported/unreadable, 422 nothing extractable).
import path from 'node:path';
import { parseDocx } from './parse-docx.ts';
import { parseHtml } from './parse-html.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { parsePdf } from './parse-pdf.ts';
import { parseText } from './parse-text.ts';
import { ParseError, type ParsedDocument, type ParseInput } from './types.ts';

export { ParseError } from './types.ts';
export type { Block, BlockKind, ImageAsset, ParsedDocument, ParseInput } from './types.ts';

export type Format = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

/** Lower-case extensions (with dot) accepted for upload, in display order. */
export const SUPPORTED_EXTENSIONS: readonly string[] = ['.pdf', '.docx', '.html', '.htm', '.md', '.markdown', '.txt'];

const BY_EXTENSION: Record<string, Format> = {
  '.pdf': 'pdf', '.docx': 'docx', '.html': 'html', '.htm': 'html', '.md': 'markdown', '.markdown': 'markdown',
  '.txt': 'text',
};

const BY_MEDIA_TYPE: Record<string, Format> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
};

function isPdf(data: Buffer): boolean {
  return data.subarray(0, 1024).includes('%PDF-', 0, 'latin1');
}

function isZip(data: Buffer): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

/** A ZIP whose entry names include word/ (an OOXML word-processing package). */
function isDocx(data: Buffer): boolean {
  return isZip(data) && data.includes('word/', 0, 'latin1');
}

/** Text-like bytes: not a ZIP, and no NUL bytes in the first 8 KB unless it looks like UTF-16 (BOM or alternating NULs). */
function isTextLike(data: Buffer): boolean {
  if (isZip(data)) return false;
  const head = data.subarray(0, 8192);
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) return true;
  let nul = 0;
  for (const b of head) if (b === 0) nul++;
  if (nul === 0) return true;
  return nul > head.length * 0.2 && nul < head.length * 0.6; // UTF-16 without BOM
}

function looksLikeHtml(data: Buffer): boolean {
  const head = data.subarray(0, 1024).toString('latin1').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body)[\s>]/.test(head);
}

/**
 * Format of an upload, or null when it is not a supported type (the route answers 400).
 * Cheap: looks at the extension, the media type (parameters ignored) and a few bytes; never parses.
 * A decisive signature overrides a misleading extension (a DOCX named .pdf is read as DOCX).
 */
export function detectFormat(filename: string, data: Buffer, mediaType?: string): Format | null {
  const ext = path.extname(filename ?? '').toLowerCase();
  const claimed = BY_EXTENSION[ext] ?? BY_MEDIA_TYPE[(mediaType ?? '').split(';')[0].trim().toLowerCase()];
  const pdfAtStart = data.subarray(0, 5).toString('latin1') === '%PDF-';
  if (pdfAtStart || (isPdf(data) && (claimed === undefined || claimed === 'pdf'))) return 'pdf';
  if (isDocx(data)) return 'docx';
  if (claimed === 'pdf' || claimed === 'docx') return null; // binary format claimed, signature missing
  if (!isTextLike(data)) return null;
  if (claimed) return claimed;
  return looksLikeHtml(data) ? 'html' : null;
}

const PARSERS: Record<Format, (data: Buffer) => Promise<ParsedDocument>> = {
  pdf: parsePdf,
  docx: parseDocx,
  html: parseHtml,
  markdown: parseMarkdown,
  text: parseText,
};

/**
 * Parse an upload into ordered blocks. Throws ParseError: 415 `unsupported_format` (detectFormat says
 * null), 415 `unreadable_document` (the parser library failed on the bytes), 422 `encrypted_document`,
 * 422 `no_extractable_text` (nothing but whitespace/images came out).
 */
export async function parseDocument(input: ParseInput): Promise<ParsedDocument> {
  const format = detectFormat(input.filename, input.data, input.mediaType);
  if (!format) {
    throw new ParseError(
      415,
      'unsupported_format',
      SUPPORTED_EXTENSIONS.includes(path.extname(input.filename ?? '').toLowerCase())
        ? `The file is named "${path.basename(input.filename)}" but its content is not a readable ${path.extname(input.filename).slice(1).toUpperCase()} file.`
        : `Unsupported file type "${path.extname(input.filename ?? '') || input.mediaType || 'unknown'}"; supported: ${SUPPORTED_EXTENSIONS.join(', ')}.`,
    );
  }
  let doc: ParsedDocument;
  try {
    doc = await PARSERS[format](input.data);
  } catch (err) {
    if (err instanceof ParseError) throw err;
    const wrapped = new ParseError(415, 'unreadable_document', `The ${format.toUpperCase()} file could not be read: ${(err as Error)?.message ?? err}`);
    (wrapped as Error & { cause?: unknown }).cause = err;
    throw wrapped;
  }
  if (!doc.blocks.some((b) => b.kind !== 'image' && /[\p{L}\p{N}]/u.test(b.text))) {
    throw new ParseError(422, 'no_extractable_text', 'The document contains no extractable text.');
  }
  return doc;
}
