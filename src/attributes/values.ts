// Value rules of typed attributes, shared by ingest (X-Attributes values) and search (filter operands):
// type inference from a JSON value, the check that a value fits a type, and RFC 3339 datetime parsing.
// Error messages name the attribute and the type but never echo the value (encrypted_text values are
// secret, and one rule for all types keeps it simple).
import { AppError } from '../internal/errors.ts';
import { elementOf, isArrayType, type AttributeType, type ScalarType } from './types.ts';

/** A value after checking: datetime as epoch ms; encrypted_text still plaintext (hashed by the caller). */
export type CheckedValue = string | number | boolean | string[] | number[] | boolean[];

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2}))?$/;

/**
 * Parse an RFC 3339 date-time (`2024-05-01T12:00:00Z`, offsets, up to 9 fractional digits — kept to the
 * millisecond) or a full date (`2024-05-01`, meaning 00:00 UTC).
 * @returns epoch milliseconds, or null when the text is not a valid RFC 3339 date/date-time
 */
export function parseDatetime(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || s > 59) return null;
  let offsetMin = 0;
  if (m[8] && m[8].toUpperCase() !== 'Z') {
    const [oh, om] = [Number(m[8].slice(1, 3)), Number(m[8].slice(4, 6))];
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[8][0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d); // setUTCFullYear keeps years 0-99 literal (Date.UTC would add 1900)
  utc.setUTCHours(h, mi, s, ms);
  return utc.getTime() - offsetMin * 60_000;
}

function kindOf(v: unknown): 'string' | 'int' | 'float' | 'bool' | null {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' && Number.isFinite(v)) return Number.isInteger(v) ? 'int' : 'float';
  return null;
}

const invalid = (name: string, type: string, why: string) =>
  new AppError('attribute_invalid_value', `Attribute "${name}": ${why}`, { name, type });

/**
 * The type a value implies (spec: string, int, float, bool and their arrays are inferred).
 * Integers give int; a number with a fraction gives float; an array of integers and fractions gives
 * []float; datetime and encrypted_text are never inferred.
 * @throws AppError attribute_invalid_value for null, an empty array, an object, nested or mixed arrays
 */
export function inferType(name: string, value: unknown): AttributeType {
  if (Array.isArray(value)) {
    if (value.length === 0) throw invalid(name, 'unknown', 'the type of an empty array cannot be inferred; declare it in X-Attribute-Schema.');
    const kinds = new Set(value.map(kindOf));
    if (kinds.has(null)) throw invalid(name, 'unknown', 'array elements must be strings, numbers or booleans (no null, objects or nested arrays).');
    if (kinds.size === 1) return `[]${[...kinds][0]}` as AttributeType;
    if (kinds.size === 2 && kinds.has('int') && kinds.has('float')) return '[]float';
    throw invalid(name, 'unknown', 'array elements must all have one type.');
  }
  const k = kindOf(value);
  if (k === null) {
    throw invalid(name, 'unknown', value === null
      ? 'the type of null cannot be inferred; declare it in X-Attribute-Schema or leave the attribute out.'
      : 'a value must be a string, number, boolean or an array of one of them.');
  }
  return k;
}

/**
 * Check one scalar against an element type.
 * @returns the stored form (datetime -> epoch ms), or undefined when it does not fit
 */
export function checkScalar(type: ScalarType, v: unknown): string | number | boolean | undefined {
  switch (type) {
    case 'string':
    case 'encrypted_text': return typeof v === 'string' ? v : undefined;
    case 'int': return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
    case 'float': return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    case 'bool': return typeof v === 'boolean' ? v : undefined;
    case 'datetime': return typeof v === 'string' ? (parseDatetime(v) ?? undefined) : undefined;
  }
}

const DESCRIBE: Record<ScalarType, string> = {
  string: 'a string', encrypted_text: 'a string', int: 'an integer (safe 53-bit)', float: 'a number',
  bool: 'true or false', datetime: 'an RFC 3339 date-time string such as "2024-05-01T12:00:00Z" or a date "2024-05-01"',
};

/** Human description of what a value of `type` must look like, e.g. "an array of integers". */
export function describeType(type: AttributeType): string {
  return isArrayType(type) ? `an array whose elements are each ${DESCRIBE[elementOf(type)]}` : DESCRIBE[elementOf(type)];
}

/**
 * Check a document's value against its type.
 * @returns the stored form (datetime -> epoch ms; arrays element-wise)
 * @throws AppError attribute_invalid_value naming the attribute and what the type needs
 */
export function checkValue(name: string, type: AttributeType, value: unknown): CheckedValue {
  const el = elementOf(type);
  if (isArrayType(type)) {
    if (!Array.isArray(value)) throw invalid(name, type, `type ${type} needs ${describeType(type)}.`);
    const out = value.map((v) => checkScalar(el, v));
    if (out.some((v) => v === undefined)) throw invalid(name, type, `type ${type} needs ${describeType(type)}.`);
    return out as CheckedValue;
  }
  const v = checkScalar(el, value);
  if (v === undefined) throw invalid(name, type, `type ${type} needs ${describeType(type)}.`);
  return v;
}
