// Search-side typed-attribute filters: `attribute_filters` clauses (ANDed, at most 32) and the legacy
// fields meta_tags_any / meta_tags_all / meta_int_{1,2}_{gte,lte} become one engine-neutral AttrExpr
// (storage/namespace-index.ts) that the index evaluates as a prefilter. Every clause is checked against
// the spec's operator table for its attribute's registered type (unsupported_operator names the ones
// the type offers) and its operand against the type. A name the project never used makes the whole
// expression `false` (matches nothing; never ignored). Operator semantics: docs/attributes.md.
import { AppError } from '../internal/errors.ts';
import type { AttrExpr, AttrLiteral, AttrStorage } from '../storage/namespace-index.ts';
import type { SearchRequest } from '../search/types.ts';
import { tokenize, type TokenHasher } from './tokens.ts';
import {
  ALL_OPERATORS, elementOf, LABELS, MAX_FILTER_CLAUSES, META_INT_1, META_INT_2, OPERATORS, storageOf, type AttributeType,
} from './types.ts';
import { checkScalar, describeType } from './values.ts';

/** The attribute-related fields of a search request. */
export type AttributeFilterRequest = Pick<SearchRequest, 'attribute_filters' | 'meta_tags_any' | 'meta_tags_all'
  | 'meta_int_1_gte' | 'meta_int_1_lte' | 'meta_int_2_gte' | 'meta_int_2_lte'>;

/** Most operands accepted by in / nin / contains_any / has_*_tokens. */
export const MAX_OPERAND_VALUES = 1000;

interface Ctx { projectId: string; hasher: TokenHasher; where: string; attr: string; op: string; type: AttributeType }

const badValue = (c: Ctx, need: string) =>
  new AppError('attribute_invalid_value', `${c.where}: operator ${c.op} on "${c.attr}" (${c.type}) needs ${need}.`, { attr: c.attr, op: c.op, type: c.type });

function scalarOperand(c: Ctx, v: unknown): AttrLiteral {
  const el = elementOf(c.type);
  const out = checkScalar(el, v);
  if (out === undefined) throw badValue(c, describeType(el));
  return out;
}

function listOperand(c: Ctx, v: unknown): AttrLiteral[] {
  const el = elementOf(c.type);
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_OPERAND_VALUES) {
    throw badValue(c, `a non-empty array (at most ${MAX_OPERAND_VALUES}) whose elements are each ${describeType(el)}`);
  }
  return v.map((x) => scalarOperand(c, x));
}

function tokenHashes(c: Ctx, v: unknown): string[] {
  const texts = typeof v === 'string' ? [v] : Array.isArray(v) && v.length <= MAX_OPERAND_VALUES && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
  if (!texts) throw badValue(c, 'a string or an array of strings');
  const hashes = c.hasher.hashTexts(c.projectId, c.attr, texts);
  if (hashes.length === 0) throw badValue(c, 'at least one word (the value has no tokens)');
  return hashes;
}

/** One clause on a registered attribute -> predicate. Assumes `op` is offered by the type. */
function clauseExpr(c: Ctx, value: unknown): AttrExpr {
  const attr = c.attr;
  const storage: AttrStorage = storageOf(c.type);
  switch (c.op) {
    case 'eq': case 'ne': case 'lt': case 'lte': case 'gt': case 'gte':
      if (c.type === '[]string') {
        // []string eq: a string -> the array contains it; an array -> the array equals it exactly.
        return Array.isArray(value)
          ? { kind: 'list_eq', attr, storage, values: value.length === 0 ? [] : listOperand(c, value) }
          : { kind: 'has', attr, storage, value: scalarOperand(c, value) };
      }
      return { kind: 'cmp', attr, storage, op: c.op, value: scalarOperand(c, value) };
    case 'in':
      if (c.type === '[]string') return { kind: 'has_any', attr, storage, values: listOperand(c, value) };
      return { kind: 'in', attr, storage, negate: false, values: listOperand(c, value) };
    case 'nin': return { kind: 'in', attr, storage, negate: true, values: listOperand(c, value) };
    case 'glob': case 'iglob':
      if (typeof value !== 'string') throw badValue(c, 'a pattern string (`*` any run, `?` one character)');
      return { kind: 'like', attr, storage, caseInsensitive: c.op === 'iglob', pattern: value };
    case 'contains': return { kind: 'has', attr, storage, value: scalarOperand(c, value) };
    case 'contains_any': return { kind: 'has_any', attr, storage, values: listOperand(c, value) };
    case 'any_lt': return { kind: 'min_lt', attr, storage, value: scalarOperand(c, value) };
    case 'any_gt': return { kind: 'max_gt', attr, storage, value: scalarOperand(c, value) };
    case 'has_all_tokens': return { kind: 'has_all', attr, storage, values: tokenHashes(c, value) };
    case 'has_any_tokens': return { kind: 'has_any', attr, storage, values: tokenHashes(c, value) };
  }
  throw new AppError('internal_error', `operator ${c.op} has no translation`);
}

/**
 * Build the attribute prefilter of a search.
 * @param fixed  the project's registry (name -> type)
 * @returns undefined when the request has no attribute condition; `{kind: 'false'}` when it names an
 *   attribute the project never used; otherwise the AND of all clauses
 * @throws AppError unsupported_operator (operator not offered by the type, or unknown), attribute_invalid_value
 *   (operand does not fit), validation_failed (more than 32 clauses)
 */
export function buildAttributeFilter(projectId: string, req: AttributeFilterRequest, fixed: ReadonlyMap<string, AttributeType>, hasher: TokenHasher): AttrExpr | undefined {
  const clauses = req.attribute_filters ?? [];
  if (clauses.length > MAX_FILTER_CLAUSES) {
    throw new AppError('validation_failed', `body.attribute_filters: at most ${MAX_FILTER_CLAUSES} clauses are allowed, got ${clauses.length}.`, { field: 'body.attribute_filters' });
  }
  const items: AttrExpr[] = [];
  let unknownName = false;
  clauses.forEach((cl, i) => {
    const where = `attribute_filters[${i}]`;
    const type = fixed.get(cl.attr);
    if (type === undefined) {
      if (!ALL_OPERATORS.includes(cl.op)) {
        throw new AppError('unsupported_operator', `${where}: unknown operator "${String(cl.op).slice(0, 40)}"; operators are ${ALL_OPERATORS.join(', ')}.`, { attr: cl.attr, op: cl.op, allowed: ALL_OPERATORS });
      }
      unknownName = true; // spec: a name the project never used matches nothing (checked after all clauses)
      return;
    }
    const allowed = OPERATORS[type];
    if (!allowed.includes(cl.op)) {
      throw new AppError('unsupported_operator', `${where}: attribute "${cl.attr}" has type ${type}, which offers the operators ${allowed.join(', ')}; "${String(cl.op).slice(0, 40)}" is not one of them.`, { attr: cl.attr, type, op: cl.op, allowed });
    }
    items.push(clauseExpr({ projectId, hasher, where, attr: cl.attr, op: cl.op, type }, cl.value));
  });
  legacyConditions(projectId, req, fixed, hasher, items, () => { unknownName = true; });
  if (unknownName) return { kind: 'false' };
  if (items.length === 0) return undefined;
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

/** Legacy search fields, mapped onto `labels` and `meta_int_1` / `meta_int_2` (docs/attributes.md). */
function legacyConditions(projectId: string, req: AttributeFilterRequest, fixed: ReadonlyMap<string, AttributeType>, hasher: TokenHasher, items: AttrExpr[], unknown: () => void): void {
  const tags = (field: string, list: string[] | undefined): string[][] | null => {
    if (!list || list.length === 0) return null;
    const perTag = list.map((t) => tokenize(t)).filter((toks) => toks.length > 0);
    if (perTag.length === 0) throw new AppError('attribute_invalid_value', `${field}: the tags contain no words.`, { field });
    return perTag;
  };
  const any = tags('meta_tags_any', req.meta_tags_any);
  const all = tags('meta_tags_all', req.meta_tags_all);
  if (any || all) {
    const type = fixed.get(LABELS);
    if (type === undefined) unknown();
    else {
      const storage = storageOf(type);
      const hash = (toks: string[]) => hasher.hashTokens(projectId, LABELS, toks);
      // Each tag must be present as a whole: every one of its tokens.
      if (any) items.push({ kind: 'or', items: any.map((toks) => ({ kind: 'has_all' as const, attr: LABELS, storage, values: hash(toks) })) });
      if (all) items.push({ kind: 'has_all', attr: LABELS, storage, values: hash([...new Set(all.flat())]) });
    }
  }
  const ints: Array<[string, string, number | undefined, 'gte' | 'lte']> = [
    [META_INT_1, 'meta_int_1_gte', req.meta_int_1_gte, 'gte'], [META_INT_1, 'meta_int_1_lte', req.meta_int_1_lte, 'lte'],
    [META_INT_2, 'meta_int_2_gte', req.meta_int_2_gte, 'gte'], [META_INT_2, 'meta_int_2_lte', req.meta_int_2_lte, 'lte'],
  ];
  for (const [attr, field, value, op] of ints) {
    if (value === undefined) continue;
    const type = fixed.get(attr);
    if (type === undefined) { unknown(); continue; }
    if (type !== 'int' && type !== 'float') {
      throw new AppError('unsupported_operator', `${field} compares "${attr}" as a number, but it has type ${type} in this project (operators: ${OPERATORS[type].join(', ')}).`, { attr, type, op, allowed: OPERATORS[type] });
    }
    if (!Number.isSafeInteger(value)) throw new AppError('attribute_invalid_value', `${field} must be a safe integer.`, { field });
    items.push({ kind: 'cmp', attr, storage: storageOf(type), op, value });
  }
}
