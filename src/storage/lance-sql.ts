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

/** Widest chunk_index span one range group may cover (see rangesToWhere). */
export const RANGE_GROUP_SPAN = 48;

/**
 * The predicate of a multi-range read (getChunkRanges) and the exact row test to apply to its result.
 * LanceDB plans and evaluates a long OR of `(doc_id = … AND chunk_index …)` terms slowly (measured at 100k
 * chunks: 57 ranges 11.6 ms, the same rows read by a leading `doc_id IN` plus one chunk_index bound
 * 4.8 ms), so nearby ranges (sorted by start, merged while the group spans at most RANGE_GROUP_SPAN
 * chunks) share one term: `doc_id IN (their documents) AND chunk_index BETWEEN lo AND hi`. A group may
 * return rows outside the ranges (another document's chunk in the group's span): `keep` drops them.
 * @param ranges non-empty ranges (to ≥ from), integers
 * @returns the where clause (a leading `doc_id IN` of every document, so the doc_id index selects rows)
 *          and `keep(docId, chunkIndex)`, true exactly for rows inside one of the ranges
 */
export function rangesToWhere(ranges: Array<{ docId: string; from: number; to: number }>): { where: string; keep: (docId: string, chunkIndex: number) => boolean } {
  const groups: Array<{ lo: number; hi: number; docs: Set<string> }> = [];
  for (const r of [...ranges].sort((a, b) => a.from - b.from)) {
    const g = groups[groups.length - 1];
    if (g && Math.max(g.hi, r.to) - g.lo < RANGE_GROUP_SPAN) {
      g.hi = Math.max(g.hi, r.to);
      g.docs.add(r.docId);
    } else groups.push({ lo: r.from, hi: r.to, docs: new Set([r.docId]) });
  }
  const byDoc = new Map<string, Array<{ from: number; to: number }>>();
  for (const r of ranges) byDoc.set(r.docId, [...(byDoc.get(r.docId) ?? []), r]);
  const terms = groups.map((g) => `(${inList('doc_id', [...g.docs], false)} AND chunk_index >= ${g.lo} AND chunk_index <= ${g.hi})`);
  return {
    where: `${inList('doc_id', [...byDoc.keys()], false)} AND (${terms.join(' OR ')})`,
    keep: (docId, chunkIndex) => byDoc.get(docId)?.some((r) => chunkIndex >= r.from && chunkIndex <= r.to) ?? false,
  };
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
  if (filter.chunkIndices !== undefined) {
    if (filter.chunkIndices.length === 0) return { empty: true };
    parts.push(`chunk_index IN (${[...new Set(filter.chunkIndices)].map((i) => String(Math.trunc(i))).join(', ')})`);
  }
  return { empty: false, where: parts.length ? parts.join(' AND ') : undefined };
}
