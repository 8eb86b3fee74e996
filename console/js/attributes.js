// Typed attributes in the console (docs/attributes.md): the project's registered names and types from
// GET /v3/docsearch/attributes, the X-Attributes / X-Attribute-Schema headers an upload sends, and the
// values of attribute_filters clauses in the search playground. The console converts what the user typed
// into JSON values and sends it; whether a value fits its type is the service's decision, and its error
// (code and message) is what the user sees.
import { api } from './api.js';

/** The spec's 12 attribute types. */
export const TYPES = ['string', 'int', 'float', 'bool', 'datetime', 'encrypted_text',
  '[]string', '[]int', '[]float', '[]bool', '[]datetime', '[]encrypted_text'];

/** The operators each type offers (the spec's table; a copy of src/attributes/types.ts, which test/console-views.test.ts keeps equal); a name the project never used may take any. */
export const OPERATORS = {
  string: ['eq', 'ne', 'in', 'nin', 'glob', 'iglob'],
  int: ['eq', 'ne', 'in', 'nin', 'lt', 'lte', 'gt', 'gte'],
  float: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
  datetime: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
  bool: ['eq', 'ne'],
  '[]string': ['contains', 'contains_any', 'eq', 'in'],
  '[]int': ['contains', 'contains_any', 'any_lt', 'any_gt'],
  '[]float': ['contains', 'contains_any', 'any_lt', 'any_gt'],
  '[]datetime': ['contains', 'any_lt', 'any_gt'],
  '[]bool': ['contains', 'contains_any'],
  encrypted_text: ['has_all_tokens', 'has_any_tokens'],
  '[]encrypted_text': ['has_all_tokens', 'has_any_tokens'],
};
export const ALL_OPERATORS = [...new Set(Object.values(OPERATORS).flat())];

const NAME = /^[a-z0-9_]{1,64}$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
/** Operators whose operand is a list. */
const LIST_OPS = new Set(['in', 'nin', 'contains_any']);

/** @returns {Promise<Map<string, string>>} registered attribute name → type (empty when unreadable) */
export async function loadAttributes() {
  try {
    const res = await api('/docsearch/attributes');
    return new Map(res.attributes.map((a) => [a.name, a.type]));
  } catch {
    return new Map();
  }
}

/** Text typed for one value of `type` ('auto' infers): numbers and booleans become JSON numbers and booleans. */
function scalar(text, type) {
  const t = text.trim();
  if ((type === 'int' || type === 'float' || type === 'auto') && NUMBER.test(t)) return Number(t);
  if ((type === 'bool' || type === 'auto') && (t === 'true' || t === 'false')) return t === 'true';
  return t;
}

/** JSON with every non-ASCII character as a \u escape: fetch header values must be Latin-1. */
export function asciiJson(value) {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The ingest headers for attribute rows.
 * @param {Array<{name: string, type: string, value: string}>} rows  type 'auto' = inferred by the service;
 *   an array type takes comma-separated elements; an empty value with a type only declares the name
 * @returns {{headers: Record<string, string>, summary: string[]}} headers to add (none when no rows)
 * @throws {Error & {code: string}} attribute_invalid_name for a name outside ^[a-z0-9_]{1,64}$, before anything is sent
 */
export function attributeHeaders(rows) {
  const values = {};
  const schema = {};
  const summary = [];
  for (const row of rows) {
    const name = row.name.trim();
    if (!name && !row.value.trim()) continue;
    if (!NAME.test(name)) throw Object.assign(new Error(`Attribute name "${name}" must match ^[a-z0-9_]{1,64}$.`), { code: 'attribute_invalid_name' });
    if (row.type !== 'auto') schema[name] = { type: row.type };
    if (!row.value.trim()) { summary.push(`${name}: ${row.type}`); continue; }
    values[name] = row.type.startsWith('[]')
      ? row.value.split(',').map((s) => s.trim()).filter(Boolean).map((s) => scalar(s, row.type.slice(2)))
      : scalar(row.value, row.type);
    summary.push(`${name}=${JSON.stringify(values[name])}`);
  }
  const headers = {};
  if (Object.keys(values).length) headers['x-attributes'] = asciiJson(values);
  if (Object.keys(schema).length) headers['x-attribute-schema'] = asciiJson(schema);
  return { headers, summary };
}

/** Types whose values are text: what is typed stays a string unless it is a JSON array. */
const TEXT_TYPES = new Set(['string', 'datetime', 'encrypted_text', '[]string', '[]datetime', '[]encrypted_text']);

/**
 * The operand of a filter clause from what was typed: JSON when it parses (5, true, "x", ["a","b"]), else
 * the text; a text attribute's operand stays text (2021 is "2021") unless it is a JSON array; for in, nin
 * and contains_any a text that is not a JSON array is a comma-separated list.
 * @param {string} [type] the attribute's registered type, when known
 */
export function filterValue(text, op, type) {
  const t = text.trim();
  const one = (s) => {
    if (TEXT_TYPES.has(type)) return s;
    try { return JSON.parse(s); } catch { return s; }
  };
  let array;
  try { array = JSON.parse(t); } catch { array = undefined; }
  if (Array.isArray(array)) return array;
  if (LIST_OPS.has(op)) return t.split(',').map((s) => s.trim()).filter(Boolean).map(one);
  return one(t);
}
