// Syntax-level validation of the attribute headers of POST /docsearch/ingest: X-Attributes,
// X-Attribute-Schema and the legacy X-Labels / X-Meta-Int-1 / X-Meta-Int-2 (mapped onto `labels`,
// `meta_int_1`, `meta_int_2`, docs/attributes.md). Checks lengths, JSON shape, names and declared
// types; value-vs-type checks need the registry and live in resolve.ts. Pure; nothing is stored.
import { AppError } from '../internal/errors.ts';
import {
  isAttributeType, LABELS, MAX_HEADER_CHARS, MAX_NAMES, META_INT_1, META_INT_2, NAME_RE, type AttributeType,
} from './types.ts';

/** Raw attribute headers as received (undefined when absent). */
export interface AttributeHeaders {
  attributes?: string;
  attributeSchema?: string;
  labels?: string;
  metaInt1?: string;
  metaInt2?: string;
}

/** Attribute part of an ingest request after syntax validation. */
export interface AttributeInput {
  /** name -> JSON value (X-Attributes plus the mapped legacy headers). */
  values: Record<string, unknown>;
  /** name -> type declared in X-Attribute-Schema. */
  declared: Record<string, AttributeType>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Node hands header values over as latin1 strings; a client that sent UTF-8 bytes (curl, most HTTP
 * libraries) gets them back as mojibake. Re-decode as UTF-8 when the bytes are valid UTF-8.
 */
export function decodeHeaderUtf8(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  try {
    return utf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

function jsonObjectHeader(header: string, raw: string): Record<string, unknown> {
  const text = decodeHeaderUtf8(raw);
  if (text.length > MAX_HEADER_CHARS) {
    throw new AppError('attribute_header_too_long', `${header} is ${text.length} characters; at most ${MAX_HEADER_CHARS} are allowed.`, { header, max: MAX_HEADER_CHARS, length: text.length });
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new AppError('invalid_header', `${header} must be a JSON object.`, { header });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new AppError('invalid_header', `${header} must be a JSON object.`, { header });
  return v as Record<string, unknown>;
}

/** @throws AppError attribute_invalid_name unless `name` matches ^[a-z0-9_]{1,64}$ */
export function checkName(name: string, where: string): void {
  if (!NAME_RE.test(name)) {
    throw new AppError('attribute_invalid_name', `${where}: attribute name "${name.slice(0, 80)}" must match ^[a-z0-9_]{1,64}$ (lower-case letters, digits, underscore).`, { name: name.slice(0, 80), pattern: NAME_RE.source });
  }
}

function legacyInt(header: string, raw: string): number {
  const s = raw.trim();
  const n = Number(s);
  if (!/^-?\d{1,16}$/.test(s) || !Number.isSafeInteger(n)) {
    throw new AppError('attribute_invalid_value', `${header} must be an integer (a safe 53-bit integer), got "${s.slice(0, 40)}".`, { header });
  }
  return n;
}

/** X-Labels: a JSON array of strings, or a comma-separated list; blank entries are dropped. */
function legacyLabels(raw: string): string[] {
  const text = decodeHeaderUtf8(raw);
  if (text.length > MAX_HEADER_CHARS) {
    throw new AppError('attribute_header_too_long', `X-Labels is ${text.length} characters; at most ${MAX_HEADER_CHARS} are allowed.`, { header: 'X-Labels', max: MAX_HEADER_CHARS, length: text.length });
  }
  if (text.trim().startsWith('[')) {
    let v: unknown;
    try { v = JSON.parse(text); } catch { v = null; }
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      throw new AppError('invalid_header', 'X-Labels must be a JSON array of strings or a comma-separated list.', { header: 'X-Labels' });
    }
    return (v as string[]).map((s) => s.trim()).filter(Boolean);
  }
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}

function setLegacy(values: Record<string, unknown>, name: string, header: string, value: unknown): void {
  if (Object.hasOwn(values, name)) {
    throw new AppError('invalid_header', `${header} and X-Attributes both set "${name}"; send it in one of them.`, { header, name });
  }
  values[name] = value;
}

/**
 * Validate the attribute headers' syntax.
 * @throws AppError attribute_header_too_long (> 2048 characters), invalid_header (not a JSON object,
 *   bad schema entry shape, a name set twice), attribute_invalid_name, attribute_invalid_type (a declared
 *   type outside the 12), attribute_type_conflict (`labels` declared other than []encrypted_text),
 *   attribute_invalid_value (legacy integer not an integer), attribute_limit_reached (> 64 names)
 */
export function parseAttributeHeaders(h: AttributeHeaders): AttributeInput {
  // Null-prototype maps: `__proto__` and `constructor` are valid attribute names.
  const values: Record<string, unknown> = Object.create(null);
  const declared: Record<string, AttributeType> = Object.create(null);
  if (h.attributes !== undefined && h.attributes !== '') {
    for (const [name, v] of Object.entries(jsonObjectHeader('X-Attributes', h.attributes))) {
      checkName(name, 'X-Attributes');
      values[name] = v;
    }
  }
  if (h.attributeSchema !== undefined && h.attributeSchema !== '') {
    for (const [name, decl] of Object.entries(jsonObjectHeader('X-Attribute-Schema', h.attributeSchema))) {
      checkName(name, 'X-Attribute-Schema');
      const type = (decl as { type?: unknown } | null)?.type;
      if (typeof decl !== 'object' || decl === null || Array.isArray(decl) || Object.keys(decl).some((k) => k !== 'type')) {
        throw new AppError('invalid_header', `X-Attribute-Schema entry "${name}" must be {"type": "<type>"}.`, { header: 'X-Attribute-Schema', name });
      }
      if (!isAttributeType(type)) {
        throw new AppError('attribute_invalid_type', `X-Attribute-Schema declares "${name}" with unknown type ${JSON.stringify(type)?.slice(0, 40)}; types are string, int, float, bool, datetime, encrypted_text and their []arrays.`, { name });
      }
      if (name === LABELS && type !== '[]encrypted_text') {
        throw new AppError('attribute_type_conflict', `"labels" is reserved with type []encrypted_text; it cannot be declared ${type}.`, { name, type: '[]encrypted_text', declared: type });
      }
      declared[name] = type;
    }
  }
  if (h.labels !== undefined && h.labels !== '') setLegacy(values, LABELS, 'X-Labels', legacyLabels(h.labels));
  if (h.metaInt1 !== undefined && h.metaInt1 !== '') setLegacy(values, META_INT_1, 'X-Meta-Int-1', legacyInt('X-Meta-Int-1', h.metaInt1));
  if (h.metaInt2 !== undefined && h.metaInt2 !== '') setLegacy(values, META_INT_2, 'X-Meta-Int-2', legacyInt('X-Meta-Int-2', h.metaInt2));
  const names = new Set([...Object.keys(values), ...Object.keys(declared)]);
  if (names.size > MAX_NAMES) {
    throw new AppError('attribute_limit_reached', `The request uses ${names.size} attribute names; a project may use at most ${MAX_NAMES}.`, { max_names: MAX_NAMES, requested: names.size });
  }
  return { values, declared };
}
