// The typed-attribute model of the spec ("Typed attribute", operator table of POST /docsearch/search)
// as data: the 12 types, the name rule, the per-project name cap, the operators each type offers, the
// reserved and legacy names, and how each type is stored in the namespace index (AttrStorage).
import type { AttrStorage } from '../storage/namespace-index.ts';

export const SCALAR_TYPES = ['string', 'int', 'float', 'bool', 'datetime', 'encrypted_text'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];
export type ArrayType = `[]${ScalarType}`;
export type AttributeType = ScalarType | ArrayType;

/** All 12 types in the spec's order. */
export const ATTRIBUTE_TYPES: readonly AttributeType[] = [
  ...SCALAR_TYPES,
  ...SCALAR_TYPES.map((t) => `[]${t}` as ArrayType),
];

/** Spec: name format `^[a-z0-9_]{1,64}$`. */
export const NAME_RE = /^[a-z0-9_]{1,64}$/;
/** Spec: at most 64 distinct names per project (`max_names`). */
export const MAX_NAMES = 64;
/** Spec: `X-Attributes` and `X-Attribute-Schema` are at most 2048 characters each. */
export const MAX_HEADER_CHARS = 2048;
/** Spec: at most 32 `attribute_filters` clauses. */
export const MAX_FILTER_CLAUSES = 32;

/** Reserved name, always `[]encrypted_text` (spec); legacy `X-Labels` / `meta_tags_*` map onto it. */
export const LABELS = 'labels';
/** Names the legacy integer headers/fields map onto (docs/attributes.md). */
export const META_INT_1 = 'meta_int_1';
export const META_INT_2 = 'meta_int_2';

/** Types that are inferred from a JSON value; the others must be declared in X-Attribute-Schema. */
export const INFERABLE: ReadonlySet<AttributeType> = new Set(['string', 'int', 'float', 'bool', '[]string', '[]int', '[]float', '[]bool']);

/** Spec operator table, per type (order as in the spec). */
export const OPERATORS: Readonly<Record<AttributeType, readonly string[]>> = {
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

/** Every operator of the spec. */
export const ALL_OPERATORS: readonly string[] = [...new Set(Object.values(OPERATORS).flat())];

/** True for a known type string such as `int` or `[]datetime`. */
export function isAttributeType(t: unknown): t is AttributeType {
  return typeof t === 'string' && (ATTRIBUTE_TYPES as readonly string[]).includes(t);
}

/** `[]int` -> `int`; scalar types are returned unchanged. */
export function elementOf(t: AttributeType): ScalarType {
  return (t.startsWith('[]') ? t.slice(2) : t) as ScalarType;
}

export function isArrayType(t: AttributeType): t is ArrayType {
  return t.startsWith('[]');
}

/**
 * How a type is stored in the namespace index: datetime as int (epoch milliseconds, UTC);
 * encrypted_text and []encrypted_text both as a list of token hashes (matching is per token).
 */
export function storageOf(t: AttributeType): AttrStorage {
  const el = elementOf(t);
  if (el === 'encrypted_text') return 'string_list';
  const base = el === 'datetime' ? 'int' : el;
  return (isArrayType(t) ? `${base}_list` : base) as AttrStorage;
}

/** One registered attribute, as GET /docsearch/attributes lists it. */
export interface AttributeDef {
  name: string;
  type: AttributeType;
}

/**
 * A document's attribute value as stored in the job payload, the documents row and (via storageOf)
 * on every chunk: scalars and arrays in JSON form; datetime as epoch ms; encrypted_text as the hex
 * keyed hashes of its tokens (never the plaintext).
 */
export interface StoredAttribute {
  type: AttributeType;
  value: string | number | boolean | string[] | number[] | boolean[] | null;
}

export type StoredAttributes = Record<string, StoredAttribute>;
