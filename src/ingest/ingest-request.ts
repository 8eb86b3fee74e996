// Validation of the ingest request headers (spec: POST /docsearch/ingest). Everything is checked
// before a job or a blob is created, so a rejected request leaves nothing behind.
import { stripVTControlCharacters } from 'node:util';
import { AppError } from '../internal/errors.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import { SUPPORTED_EXTENSIONS as SUPPORTED_DOTTED } from './parse/format.ts';
import { decodeHeaderUtf8, parseAttributeHeaders, type AttributeInput } from '../attributes/ingest-headers.ts';

/** Supported extensions without the dot (the parser table lists them as '.pdf'). */
const SUPPORTED_EXTENSIONS: string[] = SUPPORTED_DOTTED.map((e: string) => e.replace(/^\./, ''));

export interface IngestHeaders {
  contentType?: string;
  contentDisposition?: string;
  contentLength?: string;
  remoteUrl?: string;
  baseUrl?: string;
  completion?: string;
  /** Idempotency-Key (validated in jobs/idempotency.ts). */
  idempotencyKey?: string;
  /** X-Source-ID (validated in ingest/source-identity.ts). */
  sourceId?: string;
  unencryptedStrings?: string;
  attributes?: string;
  attributeSchema?: string;
  labels?: string;
  metaInt1?: string;
  metaInt2?: string;
}

export interface ValidatedIngest {
  filename: string;
  /** True when `filename` was taken from X-Remote-URL (no Content-Disposition): the final URL decides. */
  filenameFromUrl: boolean;
  remoteUrl?: string;
  baseUrl?: string;
  completion?: { url: string; headers?: Record<string, string> };
  unencryptedStrings: Record<string, string>;
  /** X-Attributes / X-Attribute-Schema / legacy headers after syntax checks (types resolved later). */
  attributes: AttributeInput;
}

/** Extension of a filename, lower-case, without the dot ('' when none). */
export function extensionOf(filename: string): string {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(filename);
  return m ? m[1].toLowerCase() : '';
}

/** C0/C1 controls, DEL, and the bidirectional and zero-width format characters (U+202E and kin). */
const UNSAFE_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A file name as stored and returned: terminal escape sequences (ANSI CSI/OSC, via Node's
 * util.stripVTControlCharacters), other control characters and bidi overrides removed, so a name cannot
 * forge log lines, recolour a terminal or display reversed ("cod.exe" shown as "exe.doc").
 * @returns the cleaned name ('' when nothing printable is left)
 */
export function cleanFilename(name: string): string {
  return stripVTControlCharacters(name).replace(UNSAFE_IN_NAMES, '').trim();
}

/**
 * Filename from `Content-Disposition: attachment; filename="x.pdf"` (RFC 6266, incl. filename*=UTF-8'').
 * A plain `filename` sent as raw UTF-8 bytes (what browsers and curl send) is read as UTF-8 when the bytes
 * are valid UTF-8, else as Latin-1 (RFC 6266 appendix D practice); control and bidi characters are then
 * removed, so a U+202E sent raw is stripped like one sent percent-encoded.
 * @returns undefined when the header has no usable filename.
 */
export function filenameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // Decoded whole, before the patterns run: a UTF-8 continuation byte read as Latin-1 can be U+0085 or
  // U+00A0, which `\s` would take for a separator.
  header = decodeHeaderUtf8(header);
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  let name: string | undefined;
  if (star) {
    try { name = decodeURIComponent(star[1].trim()); } catch { name = undefined; }
  }
  if (!name) {
    const m = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
    name = m ? (m[1] ?? m[2])?.replace(/\\(.)/g, '$1') : undefined;
  }
  if (!name) return undefined;
  name = cleanFilename(name.split(/[\\/]/).pop()!);
  return name.length > 0 && name.length <= 255 ? name : undefined;
}

/**
 * File name a URL implies: its last path segment, percent-decoded (kept raw when malformed), else the
 * host name. Used for X-Remote-URL ingests without Content-Disposition, on the final URL after redirects.
 */
export function filenameFromUrl(url: URL): string {
  const last = url.pathname.split('/').pop() || '';
  let name = last;
  try { name = decodeURIComponent(last); } catch { /* malformed %-escape: keep it as sent */ }
  name = cleanFilename(name.split(/[\\/]/).pop()!);
  return name.slice(0, 255) || url.hostname;
}

function parseJsonHeader(name: string, raw: string, max?: number): unknown {
  if (max !== undefined && raw.length > max) {
    throw new AppError('attribute_header_too_long', `${name} is ${raw.length} characters; at most ${max} are allowed.`, { header: name, max });
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new AppError('invalid_header', `${name} must be a JSON object.`, { header: name });
  }
}

/** Spec: at most 32 keys; key [A-Za-z0-9_] up to 64; value up to 1024; total up to 16384 characters. */
export function validateUnencryptedStrings(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw === '') return {};
  const v = parseJsonHeader('X-Unencrypted-Strings', decodeHeaderUtf8(raw));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new AppError('unencrypted_strings_invalid', 'X-Unencrypted-Strings must be a JSON object of string to string.');
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > 32) throw new AppError('unencrypted_strings_invalid', `X-Unencrypted-Strings has ${entries.length} keys; at most 32 are allowed.`);
  let total = 0;
  const out: Record<string, string> = {};
  for (const [k, val] of entries) {
    if (!/^[A-Za-z0-9_]{1,64}$/.test(k)) throw new AppError('unencrypted_strings_invalid', `X-Unencrypted-Strings key "${k.slice(0, 80)}" must be 1-64 characters of A-Z a-z 0-9 _.`);
    if (typeof val !== 'string') throw new AppError('unencrypted_strings_invalid', `X-Unencrypted-Strings value of "${k}" must be a string.`);
    if (val.length > 1024) throw new AppError('unencrypted_strings_invalid', `X-Unencrypted-Strings value of "${k}" is ${val.length} characters; at most 1024 are allowed.`);
    const lower = k.toLowerCase();
    if (lower in out) throw new AppError('unencrypted_strings_invalid', `X-Unencrypted-Strings key "${k}" appears twice (keys are case-insensitive).`);
    total += k.length + val.length;
    out[lower] = val;
  }
  if (total > 16384) throw new AppError('unencrypted_strings_invalid', `X-Unencrypted-Strings totals ${total} characters; at most 16384 are allowed.`);
  return out;
}

function parseCompletion(raw: string | undefined, net: NetGuard): ValidatedIngest['completion'] {
  if (!raw) return undefined;
  let v: unknown;
  if (raw.trim().startsWith('{')) v = parseJsonHeader('X-Completion', raw);
  else v = { url: raw.trim() };
  const obj = v as { url?: unknown; headers?: unknown };
  if (typeof obj.url !== 'string') throw new AppError('invalid_header', 'X-Completion must be {"url": "...", "headers": {...}} or a URL.');
  net.checkUrl(obj.url);
  const headers: Record<string, string> = {};
  if (obj.headers !== undefined) {
    if (typeof obj.headers !== 'object' || obj.headers === null) throw new AppError('invalid_header', 'X-Completion headers must be an object of strings.');
    for (const [k, val] of Object.entries(obj.headers)) {
      if (typeof val !== 'string') throw new AppError('invalid_header', `X-Completion header ${k} must be a string.`);
      headers[k] = val;
    }
  }
  return { url: obj.url, headers };
}

/**
 * Validate every ingest header.
 * @throws AppError multipart_not_accepted (403), missing_filename / unsupported_media_type / invalid_header /
 *         invalid_remote_url / unencrypted_strings_invalid (400), remote_url_forbidden (403), payload_too_large (413),
 *         and the attribute header errors of attributes/ingest-headers.ts parseAttributeHeaders (400)
 */
export function validateIngestHeaders(h: IngestHeaders, net: NetGuard, maxUploadBytes: number): ValidatedIngest {
  const ct = (h.contentType ?? '').toLowerCase();
  if (ct.startsWith('multipart/')) {
    throw new AppError('multipart_not_accepted', 'Multipart bodies are not accepted: send the file as application/octet-stream with Content-Disposition, or use X-Remote-URL.');
  }
  const remoteUrl = h.remoteUrl?.trim() || undefined;
  const dispositionName = filenameFromDisposition(h.contentDisposition);
  if (!remoteUrl && !h.contentDisposition) {
    throw new AppError('missing_filename', 'Send either X-Remote-URL or Content-Disposition: attachment; filename="<name>.<ext>".');
  }
  if (!remoteUrl && !dispositionName) {
    throw new AppError('missing_filename', 'Content-Disposition must carry a filename: attachment; filename="<name>.<ext>".');
  }
  let filename = dispositionName;
  if (remoteUrl) {
    const url = net.checkUrl(remoteUrl);
    if (!filename) filename = filenameFromUrl(url);
  }
  const ext = extensionOf(filename!);
  if (dispositionName && !SUPPORTED_EXTENSIONS.includes(ext)) {
    throw new AppError('unsupported_media_type', `Files of type ".${ext || '(none)'}" are not supported. Supported: ${SUPPORTED_EXTENSIONS.map((e) => '.' + e).join(' ')}.`, { supported: SUPPORTED_EXTENSIONS });
  }
  if (!remoteUrl) {
    if (ct && ct !== 'application/octet-stream' && !ct.startsWith('application/octet-stream;')) {
      throw new AppError('unsupported_media_type', `Raw uploads must be sent as Content-Type: application/octet-stream, not ${ct}.`);
    }
    const len = h.contentLength !== undefined ? Number(h.contentLength) : undefined;
    if (len !== undefined && Number.isFinite(len) && len > maxUploadBytes) {
      throw new AppError('payload_too_large', `The body is ${len} bytes; at most ${maxUploadBytes} are accepted. Use X-Remote-URL for larger files.`, { max_bytes: maxUploadBytes });
    }
    if (len === 0) throw new AppError('empty_body', 'The request body is empty.');
  }
  const baseUrl = h.baseUrl?.trim() || undefined;
  if (baseUrl) net.checkUrl(baseUrl);
  const attributes = parseAttributeHeaders(h);
  return {
    filename: filename!,
    filenameFromUrl: !dispositionName,
    remoteUrl,
    baseUrl,
    completion: parseCompletion(h.completion, net),
    unencryptedStrings: validateUnencryptedStrings(h.unencryptedStrings),
    attributes,
  };
}
