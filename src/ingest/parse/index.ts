// Entry point of document parsing: picks the parser for an upload and normalises failures. The file
// extension selects the format and a cheap look at the first bytes confirms it (%PDF-, a ZIP holding
// word/, text that is not binary); without a known extension the client's media type or the bytes alone
// decide. `detectFormat` never parses, so the HTTP route can refuse unsupported uploads (400) before a
// job exists; `parseDocument` runs the format's parser and turns any library failure into a ParseError
// carrying the job status code (DESIGN.md §5: 415 unsupported/unreadable, 422 nothing extractable).
import path from 'node:path';
import { bomlessUtf16 } from './decode-text.ts';
import { parseDocx } from './parse-docx.ts';
import { parseHtml } from './parse-html.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { parsePdf } from './parse-pdf.ts';
import { parseText } from './parse-text.ts';
import { isImageData, parseImage } from './parse-image.ts';
import { parseCsv, parseTsv } from './parse-csv.ts';
import { parseEml } from './parse-eml.ts';
import { parseEpub } from './parse-epub.ts';
import { parseJson } from './parse-json.ts';
import { parseOdp } from './parse-odp.ts';
import { parseOds } from './parse-ods.ts';
import { parseOdt } from './parse-odt.ts';
import { parsePptx } from './parse-pptx.ts';
import { parseRtf } from './parse-rtf.ts';
import { parseXlsx } from './parse-xlsx.ts';
import { isCfb, isEncryptedOoxml, isZip, sniffZipFormat, zipInflatedBytes } from './zip-sniff.ts';
import { parseLimits } from '../isolation/limits.ts';
import { ParseError, type ParsedDocument, type ParseInput } from './types.ts';

export { ParseError } from './types.ts';
export type { Block, BlockKind, ImageAsset, ParsedDocument, ParseInput } from './types.ts';

export type Format =
  | 'pdf' | 'docx' | 'html' | 'markdown' | 'text'
  | 'pptx' | 'xlsx' | 'odt' | 'ods' | 'odp' | 'epub' | 'rtf' | 'eml' | 'csv' | 'tsv' | 'json'
  | 'image';

/** Lower-case extensions (with dot) accepted for upload, in display order. */
export const SUPPORTED_EXTENSIONS: readonly string[] = [
  '.pdf', '.docx', '.html', '.htm', '.md', '.markdown', '.txt',
  '.pptx', '.xlsx', '.odt', '.ods', '.odp', '.epub', '.rtf', '.eml', '.csv', '.tsv', '.json',
  '.png', '.jpg', '.jpeg', '.tif', '.tiff', '.webp',
];

const BY_EXTENSION: Record<string, Format> = {
  '.pdf': 'pdf', '.docx': 'docx', '.html': 'html', '.htm': 'html', '.md': 'markdown', '.markdown': 'markdown',
  '.txt': 'text',
  '.pptx': 'pptx', '.xlsx': 'xlsx', '.odt': 'odt', '.ods': 'ods', '.odp': 'odp', '.epub': 'epub', '.rtf': 'rtf',
  '.eml': 'eml', '.csv': 'csv', '.tsv': 'tsv', '.json': 'json',
  '.png': 'image', '.jpg': 'image', '.jpeg': 'image', '.tif': 'image', '.tiff': 'image', '.webp': 'image',
};

const BY_MEDIA_TYPE: Record<string, Format> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/epub+zip': 'epub',
  'application/rtf': 'rtf',
  'text/rtf': 'rtf',
  'message/rfc822': 'eml',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/json': 'json',
  'image/png': 'image', 'image/jpeg': 'image', 'image/tiff': 'image', 'image/webp': 'image',
};

/** Formats whose files are ZIP packages (the package's entries decide which one). */
const ZIP_FORMATS = new Set<Format>(['docx', 'pptx', 'xlsx', 'odt', 'ods', 'odp', 'epub']);
/** OOXML formats: a password-protected one arrives as an OLE compound file. */
const OOXML_FORMATS = new Set<Format>(['docx', 'pptx', 'xlsx']);

function isPdf(data: Buffer): boolean {
  return data.subarray(0, 1024).includes('%PDF-', 0, 'latin1');
}

/** Text-like bytes: not a ZIP, and no NUL bytes in the first 8 KB unless it looks like UTF-16 (BOM or alternating NULs). */
function isTextLike(data: Buffer): boolean {
  if (isZip(data)) return false;
  const head = data.subarray(0, 8192);
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) return true;
  let nul = 0;
  for (const b of head) if (b === 0) nul++;
  if (nul === 0) return true;
  // UTF-16 without BOM: NULs only in the odd (LE) or only in the even (BE) positions; binaries such as
  // an MZ executable have NULs in both.
  return bomlessUtf16(head) !== null;
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
  const zipFormat = sniffZipFormat(data, claimed);
  if (zipFormat) return zipFormat;
  // A password-protected DOCX/XLSX/PPTX is an OLE file: let parseDocument report it as encrypted.
  if (claimed && OOXML_FORMATS.has(claimed) && isCfb(data)) return claimed;
  if (claimed === 'pdf' || (claimed && ZIP_FORMATS.has(claimed))) return null; // binary format claimed, signature missing
  if (isImageData(data)) return 'image'; // OCR'd (parse-image.ts)
  if (claimed === 'image') return null;
  if (!isTextLike(data)) return null;
  const rtf = data.subarray(0, 16).toString('latin1').trimStart().startsWith('{\\rtf');
  if (rtf) return 'rtf';
  if (claimed === 'rtf') return null;
  if (claimed) return claimed;
  if (looksLikeEml(data)) return 'eml';
  return looksLikeHtml(data) ? 'html' : null;
}

/** RFC 822 header lines at the start (From:/Received:/MIME-Version:/Message-ID: ...). */
function looksLikeEml(data: Buffer): boolean {
  const head = data.subarray(0, 2048).toString('latin1');
  return /^(?:(?:Return-Path|Received|From|To|Subject|Date|Message-ID|MIME-Version|Delivered-To|X-[\w-]+):[^\n]*\r?\n(?:[ \t][^\n]*\r?\n)*){3}/i.test(head);
}

/** Nesting limit for documents inside documents (e-mail attachments, forwarded messages). */
const MAX_PARSE_DEPTH = 3;

interface ParserContext {
  /** Nesting depth: 0 for the upload itself. */
  depth: number;
}

const PARSERS: Record<Format, (data: Buffer, ctx: ParserContext) => Promise<ParsedDocument>> = {
  pdf: parsePdf,
  docx: parseDocx,
  html: parseHtml,
  markdown: parseMarkdown,
  text: parseText,
  pptx: parsePptx,
  xlsx: parseXlsx,
  odt: parseOdt,
  ods: parseOds,
  odp: parseOdp,
  epub: parseEpub,
  rtf: parseRtf,
  csv: parseCsv,
  tsv: parseTsv,
  json: parseJson,
  image: (data) => parseImage(data),
  eml: (data, ctx) =>
    parseEml(data, {
      parseAttachment: ctx.depth + 1 < MAX_PARSE_DEPTH ? (input) => parseDocument(input, ctx.depth + 1) : undefined,
    }),
};

/**
 * Parse an upload into ordered blocks. Throws ParseError: 415 `unsupported_format` (detectFormat says
 * null), 415 `unreadable_document` (the parser library failed on the bytes), 422 `encrypted_document`,
 * 422 `no_extractable_text` (nothing but whitespace/images came out).
 */
export async function parseDocument(input: ParseInput, depth = 0): Promise<ParsedDocument> {
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
  if (OOXML_FORMATS.has(format) && isCfb(input.data)) {
    throw isEncryptedOoxml(input.data)
      ? new ParseError(422, 'encrypted_document', `The ${format.toUpperCase()} file is password-protected; upload it without a password.`)
      : new ParseError(415, 'unsupported_format', `The file is a legacy binary Office document (.doc/.xls/.ppt), which is not supported; save it as ${format.toUpperCase()}.`);
  }
  if (isZip(input.data)) {
    const inflated = zipInflatedBytes(input.data);
    const max = parseLimits().maxInflatedBytes;
    if (inflated > max) {
      throw new ParseError(413, 'document_too_large', `The ${format.toUpperCase()} package inflates to ${Math.round(inflated / 2 ** 20)} MB (sizes declared by its parts), more than the ${Math.round(max / 2 ** 20)} MB this server unpacks per document; it looks like a zip bomb.`);
    }
  }
  let doc: ParsedDocument;
  try {
    doc = await PARSERS[format](input.data, { depth });
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
