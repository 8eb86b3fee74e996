// Document-level scoping of a search against the control plane (DESIGN.md §2 "two-store consistency"):
// the data plane may briefly hold chunks of a half-ingested or being-deleted document, so only documents
// whose control-plane row is `visible` may appear. This module turns the request's document filters
// (doc_filter, doc_ids, exclude_doc_ids, unencrypted_strings_match, attribute filters) into a ChunkFilter
// prefilter, and looks up the visible rows of candidate documents.
import { sql } from 'kysely';
import type { ControlPlane } from '../storage/db.ts';
import type { AttrExpr, ChunkFilter } from '../storage/namespace-index.ts';
import { AppError } from '../internal/errors.ts';
import { timeSlicer } from '../internal/event-loop.ts';
import type { SearchRequest } from './types.ts';
import { compileGlob, type CompiledGlob } from './glob-match.ts';
import { documentLabel } from '../ingest/chunk-rows.ts';

export interface VisibleDoc {
  doc_id: string;
  title: string;
  canonical_url: string;
  /** The uploaded file name ('' when unknown): with the title it makes the label the index holds (ingest/chunk-rows.ts documentLabel). */
  filename: string;
}

/** Builds the typed-attribute prefilter of a request (implemented by attributes/attribute-service.ts). */
export interface AttributeFilterSource {
  /**
   * @returns undefined without attribute conditions; `{kind: 'false'}` when one names an attribute the
   *   project never used; throws AppError 400 for an operator the type does not offer or a bad operand
   */
  searchFilter(projectId: string, req: SearchRequest): Promise<AttrExpr | undefined>;
}

/** Outcome of scoping: a prefilter, or `matchNothing` when the filters provably exclude everything. */
export interface Scope {
  filter: ChunkFilter;
  matchNothing: boolean;
  /** The `doc_filter` document's label (ingest/chunk-rows.ts documentLabel); absent without doc_filter. */
  label?: string;
}

/** Keys a document can carry (X-Unencrypted-Strings, spec Resources): a match naming more matches nothing. */
const MAX_STRING_KEYS = 32;

/**
 * Compile `unencrypted_strings_match` (key → glob, keys case-insensitive and ANDed) into a predicate over
 * a document's strings. The globs are linear-time (glob-match.ts): one document costs at most
 * 32 keys × O(1,024 · 33) word operations, whatever the patterns.
 */
export function compileUnencryptedMatch(match: Record<string, string>): (strings: Record<string, string>) => boolean {
  const wanted = new Map<string, CompiledGlob[]>();
  for (const [k, pattern] of Object.entries(match)) {
    const key = k.toLowerCase();
    wanted.set(key, [...(wanted.get(key) ?? []), compileGlob(pattern)]);
  }
  if (wanted.size > MAX_STRING_KEYS) return () => false;
  return (strings) => {
    const lower = new Map(Object.entries(strings).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [key, globs] of wanted) {
      const v = lower.get(key);
      if (typeof v !== 'string' || !globs.every((g) => g.test(v))) return false;
    }
    return true;
  };
}

/** True when a document's unencrypted strings satisfy every key → pattern pair (keys case-insensitive). */
export function matchesUnencryptedStrings(strings: Record<string, string>, match: Record<string, string>): boolean {
  return compileUnencryptedMatch(match)(strings);
}

/**
 * Ids of the rows whose strings satisfy `match`. Gives the event loop back every 10 ms of matching, so
 * a project with many documents (or a match of 32 worst-case patterns) never holds the main thread for
 * long.
 */
async function matchingDocs(rows: Array<{ doc_id: string; unencrypted_strings: string }>, match: Record<string, string>): Promise<string[]> {
  const test = compileUnencryptedMatch(match);
  const tick = timeSlicer();
  const ok: string[] = [];
  for (const row of rows) {
    if (test(parseStrings(row.unencrypted_strings))) ok.push(row.doc_id);
    await tick();
  }
  return ok;
}

/** True when the request carries a typed-attribute condition (attribute_filters or a legacy meta_* field). */
export function hasAttributeConditions(req: SearchRequest): boolean {
  return (req.attribute_filters?.length ?? 0) > 0
    || (req.meta_tags_any?.length ?? 0) > 0
    || (req.meta_tags_all?.length ?? 0) > 0
    || [req.meta_int_1_gte, req.meta_int_1_lte, req.meta_int_2_gte, req.meta_int_2_lte].some((v) => v !== undefined);
}

/** Ids of the project's documents in state `deleting` (one query over the project's rows). */
export async function deletingDocs(cp: ControlPlane, projectId: string): Promise<string[]> {
  const rows = await cp.db.selectFrom('documents').select('doc_id')
    .where('project_id', '=', projectId).where('state', '=', 'deleting').execute();
  return rows.map((r) => r.doc_id);
}

/**
 * Per-project cache of deletingDocs() with a short TTL; concurrent searches share one query. The list
 * only keeps a deleting document's chunks from taking candidate slots (recall): whether a document may
 * be shown is decided per search by visibleDocs(), which is never cached, so a stale list cannot serve a
 * deleted document. The query reads the (project_id, state) index (migration 0006).
 */
export class DeletingDocsCache {
  private readonly entries = new Map<string, { at: number; ids: Promise<string[]> }>();

  /** @param ttlMs how long a list is reused, in milliseconds (default 1 000) */
  constructor(private readonly cp: ControlPlane, private readonly ttlMs = 1000) {}

  /** The project's deleting document ids, at most `ttlMs` old. Throws what the control plane throws. */
  async get(projectId: string): Promise<string[]> {
    const now = Date.now();
    const hit = this.entries.get(projectId);
    if (hit && now - hit.at < this.ttlMs) return hit.ids;
    if (this.entries.size >= 10_000) this.entries.clear();
    const ids = deletingDocs(this.cp, projectId);
    this.entries.set(projectId, { at: now, ids });
    ids.catch(() => this.entries.delete(projectId));
    return ids;
  }
}

/**
 * Build the prefilter of a search.
 * @param attrs builds the typed-attribute part; without it any attribute condition matches nothing
 * @param deleting cached source of the deleting documents (default: one query per call)
 * @throws AppError document_not_found (404) when `doc_filter` names no visible document of the project;
 *   the attribute errors of AttributeFilterSource (400 unsupported_operator / attribute_invalid_value, 503)
 */
export async function resolveScope(cp: ControlPlane, projectId: string, req: SearchRequest, attrs?: AttributeFilterSource, deleting?: DeletingDocsCache): Promise<Scope> {
  // Typed attributes first: an unsupported operator is a 400 whatever else the request scopes to.
  const attributes: AttrExpr | undefined = attrs
    ? await attrs.searchFilter(projectId, req)
    : (hasAttributeConditions(req) ? { kind: 'false' } : undefined);
  let docIds: string[] | undefined = req.doc_ids ? [...new Set(req.doc_ids)] : undefined;
  let label: string | undefined;
  if (req.doc_filter !== undefined && req.doc_filter !== '') {
    const row = await cp.db.selectFrom('documents').select(['doc_id', 'title', 'filename'])
      .where('project_id', '=', projectId).where('doc_id', '=', req.doc_filter).where('state', '=', 'visible')
      .executeTakeFirst();
    if (!row) throw new AppError('document_not_found', `Document "${req.doc_filter}" (doc_filter) is not in this project's namespace.`, { doc_id: req.doc_filter });
    docIds = docIds ? docIds.filter((d) => d === req.doc_filter) : [req.doc_filter];
    label = documentLabel(row.title, row.filename ?? '');
  }
  if (req.unencrypted_strings_match && Object.keys(req.unencrypted_strings_match).length > 0) {
    const rows = await cp.db.selectFrom('documents').select(['doc_id', 'unencrypted_strings'])
      .where('project_id', '=', projectId).where('state', '=', 'visible').execute();
    const ok = await matchingDocs(rows, req.unencrypted_strings_match);
    const okSet = new Set(ok);
    docIds = docIds ? docIds.filter((d) => okSet.has(d)) : ok;
  }
  const hidden = deleting ? await deleting.get(projectId) : await deletingDocs(cp, projectId);
  const exclude = [...new Set([...(req.exclude_doc_ids ?? []), ...hidden])];
  if (docIds) {
    const ex = new Set(exclude);
    docIds = docIds.filter((d) => !ex.has(d));
  }
  const filter: ChunkFilter = {};
  if (docIds) filter.docIds = docIds;
  if (exclude.length && !docIds) filter.excludeDocIds = exclude;
  if (attributes) filter.attributes = attributes;
  return { filter, matchNothing: attributes?.kind === 'false' || (docIds !== undefined && docIds.length === 0), ...(label !== undefined ? { label } : {}) };
}

function parseStrings(json: string): Record<string, string> {
  try {
    const v = JSON.parse(json || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/**
 * Visible documents among `docIds` (one primary-key query).
 * @returns doc_id → title, canonical_url and filename; ids without a visible row are absent
 */
export async function visibleDocs(cp: ControlPlane, projectId: string, docIds: string[]): Promise<Map<string, VisibleDoc>> {
  const out = new Map<string, VisibleDoc>();
  const unique = [...new Set(docIds)];
  if (unique.length === 0) return out;
  // The ids go as ONE parameter (a JSON array on SQLite, a text[] on PostgreSQL), so the SQL text is the
  // same for every search (one prepared statement) and no query builder node is made per id: building and
  // binding ≈ 180 ids a search was 0.5 ms of Kysely time (profiled). By primary key only, the state
  // checked here: with `state = 'visible'` in SQL, SQLite's planner (no statistics) took the (project_id,
  // state) index and scanned every visible document of the project (1.5 ms a search at 5 000 documents).
  const ids = cp.dialect === 'postgres'
    ? sql<boolean>`doc_id = any(${unique}::text[])`
    : sql<boolean>`doc_id in (select value from json_each(${JSON.stringify(unique)}))`;
  const rows = await cp.db.selectFrom('documents').select(['doc_id', 'title', 'canonical_url', 'filename', 'state'])
    .where('project_id', '=', projectId).where(ids)
    .execute();
  for (const r of rows) if (r.state === 'visible') out.set(r.doc_id, { doc_id: r.doc_id, title: r.title, canonical_url: r.canonical_url, filename: r.filename });
  return out;
}

/**
 * Primary language subtag most common among the project's visible documents, or null ('und' / none).
 * Used to stem queries whose own language is undetectable.
 */
export async function dominantLanguage(cp: ControlPlane, projectId: string): Promise<string | null> {
  const row = await cp.db.selectFrom('documents')
    .select(['language', (eb) => eb.fn.countAll<number>().as('n')])
    .where('project_id', '=', projectId).where('state', '=', 'visible')
    .groupBy('language').orderBy('n', 'desc').orderBy('language').limit(1)
    .executeTakeFirst();
  const primary = row?.language?.split('-')[0]?.toLowerCase() ?? '';
  return primary && primary !== 'und' ? primary : null;
}
