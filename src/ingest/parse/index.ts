// Entry point of document parsing: picks the parser for an upload (format.ts decides the format) and
// normalises failures. Parser modules are imported on first use of their format, so a process that
// never parses (the API role; the main thread of role `all`, which parses in child processes) never
// loads pdfjs, mammoth, exceljs, sharp or the other parser libraries. `parseDocument` runs the
// format's parser and turns any library failure into a ParseError carrying the job status code
// (DESIGN.md §5: 415 unsupported/unreadable, 422 nothing extractable).
import path from 'node:path';
import { detectFormat, OOXML_FORMATS, SUPPORTED_EXTENSIONS, type Format } from './format.ts';
import { isCfb, isEncryptedOoxml, isZip, zipInflatedBytes } from './zip-sniff.ts';
import { parseLimits } from '../isolation/limits.ts';
import { ParseError, type ParsedDocument, type ParseInput } from './types.ts';
import { withNativeBuiltins } from './native-builtins.ts';

export { ParseError } from './types.ts';
export type { Block, BlockKind, ImageAsset, ParsedDocument, ParseInput } from './types.ts';
export { detectFormat, SUPPORTED_EXTENSIONS, type Format } from './format.ts';

/** Nesting limit for documents inside documents (e-mail attachments, forwarded messages). */
const MAX_PARSE_DEPTH = 3;

interface ParserContext {
  /** Nesting depth: 0 for the upload itself. */
  depth: number;
}

type Parser = (data: Buffer, ctx: ParserContext) => Promise<ParsedDocument>;

/** pdfjs's worker code: imported with the PDF parser, it registers globalThis.pdfjsWorker, which pdfjs then runs in this thread. */
const PDF_WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs'; // untyped: import by a string variable

/** Each format's parser, imported on first use (see the header). */
const PARSERS: Record<Format, () => Promise<Parser>> = {
  pdf: async () => {
    const { parsePdf } = await import('./parse-pdf.ts');
    await import(PDF_WORKER).catch(() => undefined);
    return parsePdf;
  },
  docx: async () => (await import('./parse-docx.ts')).parseDocx,
  html: async () => (await import('./parse-html.ts')).parseHtml,
  markdown: async () => (await import('./parse-markdown.ts')).parseMarkdown,
  text: async () => (await import('./parse-text.ts')).parseText,
  pptx: async () => (await import('./parse-pptx.ts')).parsePptx,
  xlsx: async () => (await import('./parse-xlsx.ts')).parseXlsx,
  odt: async () => (await import('./parse-odt.ts')).parseOdt,
  ods: async () => (await import('./parse-ods.ts')).parseOds,
  odp: async () => (await import('./parse-odp.ts')).parseOdp,
  epub: async () => (await import('./parse-epub.ts')).parseEpub,
  rtf: async () => (await import('./parse-rtf.ts')).parseRtf,
  csv: async () => (await import('./parse-csv.ts')).parseCsv,
  tsv: async () => (await import('./parse-csv.ts')).parseTsv,
  json: async () => (await import('./parse-json.ts')).parseJson,
  image: async () => {
    const { parseImage } = await import('./parse-image.ts');
    return (data) => parseImage(data);
  },
  eml: async () => {
    const { parseEml } = await import('./parse-eml.ts');
    return (data, ctx) => parseEml(data, {
      parseAttachment: ctx.depth + 1 < MAX_PARSE_DEPTH ? (input) => parseDocument(input, ctx.depth + 1) : undefined,
    });
  },
};

/**
 * A format's parser, imported on first use; the built-ins a parser library replaces are put back after
 * (native-builtins.ts: pdfjs's bundled core-js slowed every Array push of the process).
 */
function loadParser(format: Format): Promise<Parser> {
  return withNativeBuiltins(PARSERS[format]);
}

/** Import every parser now (a parse child does this at start-up, so no document pays for it). */
export async function loadParsers(): Promise<void> {
  await Promise.all((Object.keys(PARSERS) as Format[]).map(loadParser));
}

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
  const parse = await loadParser(format); // a failing import is the server's fault, not the file's
  let doc: ParsedDocument;
  try {
    doc = await parse(input.data, { depth });
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
