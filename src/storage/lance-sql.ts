// SQL fragments for LanceDB `where` prefilters and table-name validation. Every value that reaches a
// LanceDB predicate goes through sqlString() so document ids containing quotes cannot change the
// query; namespaces become table names, so they are checked against a strict identifier pattern.

import { AppError } from '../internal/errors.ts';
import type { ChunkFilter } from './namespace-index.ts';

/** Namespace (= table name) pattern: a letter or '_' first, then letters, digits, '_'; ≤ 128 chars. */
export const NAMESPACE_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Throws AppError('internal_error') unless `namespace` is a safe table identifier such as `ns_<hex>`. */
export function assertNamespace(namespace: string): void {
  if (typeof namespace !== 'string' || !NAMESPACE_RE.test(namespace)) {
    throw new AppError('internal_error', `invalid namespace name ${JSON.stringify(namespace)}: expected ${NAMESPACE_RE}`);
  }
}

/** A SQL string literal: single quotes doubled (standard SQL / DataFusion), backslashes literal. */
export function sqlString(value: string): string {
  return `'${String(value).replaceAll("'", "''")}'`;
}

/** `col IN ('a', 'b')` for a non-empty list. */
function inList(column: string, values: string[], negate: boolean): string {
  return `${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(sqlString).join(', ')})`;
}

/**
 * Translate the document-id part of a ChunkFilter into a LanceDB `where` predicate (the attribute
 * part is compiled per query against the table's columns by lance-attributes.ts; an attribute
 * expression that is `false` makes the filter empty here).
 * @returns `{ empty: true }` when the filter can match nothing (docIds: []), so callers skip the
 *          query; otherwise `{ empty: false, where }` with `where` undefined when nothing filters.
 */
export function filterToWhere(filter?: ChunkFilter): { empty: true } | { empty: false; where?: string } {
  if (!filter) return { empty: false };
  if (filter.attributes?.kind === 'false') return { empty: true };
  const parts: string[] = [];
  if (filter.docIds !== undefined) {
    if (filter.docIds.length === 0) return { empty: true };
    parts.push(inList('doc_id', [...new Set(filter.docIds)], false));
  }
  if (filter.excludeDocIds !== undefined && filter.excludeDocIds.length > 0) {
    parts.push(inList('doc_id', [...new Set(filter.excludeDocIds)], true));
  }
  return { empty: false, where: parts.length ? parts.join(' AND ') : undefined };
}
