// Format detection of uploads, kept apart from the parsers so that processes which only accept uploads
// (the API role, and the service's main thread in role `all`, which parses in child processes) can
// refuse unsupported files without loading any parser library (pdfjs, mammoth, exceljs,
// sharp… cost the API process memory it never uses). The extension selects the format and a cheap look
// at the first bytes confirms it (%PDF-, a ZIP holding word/, text that is not binary); without a known
// extension the client's media type or the bytes alone decide. Nothing here parses.
import path from 'node:path';
import { bomlessUtf16 } from './decode-text.ts';
import { isCfb, isZip, sniffZipFormat } from './zip-sniff.ts';

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
export const ZIP_FORMATS = new Set<Format>(['docx', 'pptx', 'xlsx', 'odt', 'ods', 'odp', 'epub']);
/** OOXML formats: a password-protected one arrives as an OLE compound file. */
export const OOXML_FORMATS = new Set<Format>(['docx', 'pptx', 'xlsx']);

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

/** PNG, JPEG, TIFF (either byte order) or WebP signature at the start of the bytes. */
export function isImageData(data: Buffer): boolean {
  if (data.length < 12) return false;
  const hex = data.subarray(0, 4).toString('hex');
  return hex === '89504e47' || hex.startsWith('ffd8ff') || hex === '49492a00' || hex === '4d4d002a' ||
    (hex === '52494646' && data.subarray(8, 12).toString('latin1') === 'WEBP');
}
