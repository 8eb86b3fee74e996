// Typed attribute columns of a LanceDB namespace table. Each attribute name becomes one
// nullable column `attr_<name>` whose Arrow type follows its storage kind (lists for array types); a
// name first seen on a live table is added with addColumns (existing rows read NULL). Attribute
// conditions (AttrExpr) compile here into a `where` prefilter with every literal escaped: strings via
// sqlString, numbers checked finite/safe, LIKE patterns with `\` escapes (the only escape DataFusion's
// LIKE accepts). Every predicate is guarded by `col IS NOT NULL`: Lance reads a column missing from an
// older fragment as a null list that array_has_all() would otherwise treat as empty (measured, 0.37).
// A scalar bool is stored as Int8 (1/0; ints are Int64, so Int8 always means bool): apache-arrow 18's IPC
// writer emits an empty value bitmap for an all-null Boolean column, which LanceDB rejects ("Need at
// least 1 bytes for bitmap"), and a batch of documents without the attribute is exactly that.

import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import type { DataType, Field, Schema } from 'apache-arrow';
import type * as Lance from '@lancedb/lancedb';
import { AppError } from '../internal/errors.ts';
import type { AttrExpr, AttrLiteral, AttrPredicate, AttrStorage, ChunkRecord } from './namespace-index.ts';
import { sqlString } from './lance-sql.ts';

// The CommonJS apache-arrow instance that @lancedb/lancedb uses (see lance-arrow.ts).
const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

/** Column-name prefix of attribute columns; attribute names are ^[a-z0-9_]{1,64}$ (safe identifiers). */
export const ATTR_PREFIX = 'attr_';
const NAME_RE = /^[a-z0-9_]{1,64}$/;

/** Column of attribute `name`. @throws AppError internal_error for a name outside ^[a-z0-9_]{1,64}$ */
export function attrColumn(name: string): string {
  if (!NAME_RE.test(name)) throw new AppError('internal_error', `invalid attribute name ${JSON.stringify(name)}`);
  return ATTR_PREFIX + name;
}

function elementType(storage: AttrStorage): DataType {
  switch (storage) {
    case 'string': case 'string_list': return new arrow.Utf8();
    case 'int': case 'int_list': return new arrow.Int64();
    case 'float': case 'float_list': return new arrow.Float64();
    case 'bool': return new arrow.Int8();
    case 'bool_list': return new arrow.Bool();
  }
}

/** Arrow field of an attribute column (nullable; list types hold nullable elements). */
export function attrField(name: string, storage: AttrStorage): Field {
  const el = elementType(storage);
  const type = storage.endsWith('_list') ? new arrow.List(new arrow.Field('item', el, true)) : el;
  return new arrow.Field(attrColumn(name), type, true);
}

function storageOfType(type: DataType): AttrStorage | null {
  if (arrow.DataType.isList(type)) {
    const el = type.children[0].type;
    return arrow.DataType.isUtf8(el) ? 'string_list' : arrow.DataType.isInt(el) ? 'int_list'
      : arrow.DataType.isFloat(el) ? 'float_list' : arrow.DataType.isBool(el) ? 'bool_list' : null;
  }
  if (arrow.DataType.isUtf8(type)) return 'string';
  if (arrow.DataType.isInt(type)) return (type as ArrowNS.Int).bitWidth === 8 ? 'bool' : 'int';
  if (arrow.DataType.isFloat(type)) return 'float';
  return null;
}

/** Attribute columns present in a table schema: attribute name -> storage kind. */
export function attrColumnsOf(schema: Schema): Map<string, AttrStorage> {
  const out = new Map<string, AttrStorage>();
  for (const f of schema.fields) {
    if (!f.name.startsWith(ATTR_PREFIX)) continue;
    const storage = storageOfType(f.type);
    if (storage) out.set(f.name.slice(ATTR_PREFIX.length), storage);
  }
  return out;
}

/**
 * Add the attribute columns that `rows` carry and the table lacks (caller holds the namespace write
 * lock). Retries a conflicting concurrent commit (e.g. an index build) a few times.
 * @returns the table's schema after the change
 * @throws AppError internal_error when an existing column has another storage kind than a row value
 */
export async function ensureAttrColumns(table: Lance.Table, rows: ChunkRecord[]): Promise<Schema> {
  const wanted = new Map<string, AttrStorage>();
  for (const r of rows) for (const [name, v] of Object.entries(r.attributes ?? {})) wanted.set(name, v.storage);
  for (let attempt = 1; ; attempt++) {
    const schema = await table.schema();
    if (wanted.size === 0) return schema;
    const have = attrColumnsOf(schema);
    const missing: Field[] = [];
    for (const [name, storage] of wanted) {
      const existing = have.get(name);
      if (existing === undefined) missing.push(attrField(name, storage));
      else if (existing !== storage) {
        throw new AppError('internal_error', `attribute column ${attrColumn(name)} holds ${existing}, a chunk carries ${storage}`);
      }
    }
    if (missing.length === 0) return schema;
    try {
      await table.addColumns(missing);
    } catch (err) {
      // Another writer may have added the same column, or a concurrent commit conflicted: re-check.
      if (attempt >= 4) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}

/** Arrow data of attribute column `field` for `rows` (values of another storage kind become null). */
export function attrColumnData(field: Field, rows: ChunkRecord[]) {
  const name = field.name.slice(ATTR_PREFIX.length);
  const storage = storageOfType(field.type);
  const values = rows.map((r) => {
    const v = r.attributes?.[name];
    if (!v || v.value === null || v.storage !== storage) return null;
    if (storage === 'int') return BigInt(v.value as number);
    if (storage === 'int_list') return (v.value as number[]).map((x) => BigInt(x));
    if (storage === 'bool') return v.value ? 1 : 0;
    return v.value;
  });
  if (storage?.endsWith('_list')) return listData(values as Array<unknown[] | null>, field.type as DataType);
  return arrow.vectorFromArray(values, field.type as DataType).data[0];
}

/** A nullable List column built by hand: offsets, validity, flattened child. */
function listData(values: Array<unknown[] | null>, type: DataType) {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  const valid = new Uint8Array(Math.ceil(n / 8));
  const flat: unknown[] = [];
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else {
      valid[i >> 3] |= 1 << (i & 7);
      for (const x of v) flat.push(x);
    }
    offsets[i + 1] = flat.length;
  });
  const childType = type.children[0].type as DataType;
  const child = arrow.DataType.isBool(childType)
    ? boolData(flat as boolean[])
    : arrow.vectorFromArray(flat, childType).data[0];
  return arrow.makeData({ type: type as ArrowNS.List, length: n, nullCount: nulls, nullBitmap: valid, valueOffsets: offsets, child });
}

/** A Boolean array (list elements; never null) built by hand with its packed value bitmap. */
function boolData(values: Array<boolean | null>) {
  const n = values.length;
  const bits = new Uint8Array(Math.ceil(n / 8));
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else valid[i >> 3] |= 1 << (i & 7);
    if (v === true) bits[i >> 3] |= 1 << (i & 7);
  });
  return arrow.makeData({ type: new arrow.Bool(), length: n, nullCount: nulls, nullBitmap: valid, data: bits });
}

/** SQL literal of `v` for a column whose elements are `storage`. @throws AppError internal_error on a bad value */
function literal(storage: AttrStorage, v: AttrLiteral): string {
  const base = storage.replace(/_list$/, '');
  if (base === 'string' && typeof v === 'string') return sqlString(v);
  if (storage === 'bool' && typeof v === 'boolean') return v ? '1' : '0'; // Int8 column
  if (storage === 'bool_list' && typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (base === 'int' && typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (base === 'float' && typeof v === 'number' && Number.isFinite(v)) return `CAST(${String(v)} AS DOUBLE)`;
  throw new AppError('internal_error', `attribute literal ${JSON.stringify(v)} does not fit a ${storage} column`);
}

/** LIKE pattern of a `*`/`?` glob: `\`, `%`, `_` escaped with `\`; `*` -> `%`, `?` -> `_`. */
export function globToLike(glob: string): string {
  return glob.replace(/[\\%_*?]/g, (ch) => (ch === '*' ? '%' : ch === '?' ? '_' : `\\${ch}`));
}

const CMP_SQL = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

function compilePredicate(p: AttrPredicate, columns: Map<string, AttrStorage>): string {
  if (columns.get(p.attr) !== p.storage) return 'FALSE'; // no document carries a value of this name yet
  const col = attrColumn(p.attr);
  const lit = (v: AttrLiteral) => literal(p.storage, v);
  const list = (vs: AttrLiteral[]) => `make_array(${vs.map(lit).join(', ')})`;
  let body: string;
  switch (p.kind) {
    case 'cmp': body = `${col} ${CMP_SQL[p.op]} ${lit(p.value)}`; break;
    case 'in': body = p.values.length ? `${col} ${p.negate ? 'NOT IN' : 'IN'} (${p.values.map(lit).join(', ')})` : (p.negate ? 'TRUE' : 'FALSE'); break;
    case 'like': body = `${col} ${p.caseInsensitive ? 'ILIKE' : 'LIKE'} ${sqlString(globToLike(p.pattern))}`; break;
    case 'has': body = `array_has(${col}, ${lit(p.value)})`; break;
    case 'has_any': body = p.values.length ? `array_has_any(${col}, ${list(p.values)})` : 'FALSE'; break;
    case 'has_all': body = p.values.length ? `array_has_all(${col}, ${list(p.values)})` : 'TRUE'; break;
    case 'list_eq': body = p.values.length ? `${col} = ${list(p.values)}` : `cardinality(${col}) = 0`; break;
    case 'min_lt': body = `array_min(${col}) < ${lit(p.value)}`; break;
    case 'max_gt': body = `array_max(${col}) > ${lit(p.value)}`; break;
  }
  return `(${col} IS NOT NULL AND ${body})`;
}

/**
 * Compile an attribute expression into a LanceDB `where` predicate over the table's columns.
 * @param columns attribute columns of the table (attrColumnsOf); a predicate on an absent column is FALSE
 * @returns SQL text; exactly 'FALSE' when the expression can match nothing
 */
export function compileAttrExpr(expr: AttrExpr, columns: Map<string, AttrStorage>): string {
  switch (expr.kind) {
    case 'false': return 'FALSE';
    case 'and':
    case 'or': {
      const parts = expr.items.map((e) => compileAttrExpr(e, columns));
      if (parts.length === 0) return expr.kind === 'and' ? 'TRUE' : 'FALSE';
      if (expr.kind === 'and' && parts.includes('FALSE')) return 'FALSE';
      const kept = expr.kind === 'or' ? parts.filter((p) => p !== 'FALSE') : parts;
      if (kept.length === 0) return 'FALSE';
      return kept.length === 1 ? kept[0] : `(${kept.join(expr.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    default: return compilePredicate(expr, columns);
  }
}
