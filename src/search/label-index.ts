// The labels (title and file name) of every visible document of a project, indexed by term, for document
// routing (stages/route-documents.ts): a query names its documents by their identity, and the document it is
// about need not be among the retrieved candidates, so routing looks at the labels of the whole namespace.
// Per project the control plane is asked at most once per LABEL_TTL_MS for a fingerprint of its visible
// documents (count and latest ingest time, one indexed aggregate); the labels are read again and the term
// index rebuilt only when it changed. A search then costs one map lookup per query term. Projects of more
// than MAX_LABEL_DOCS documents are not indexed: routing there considers the candidates' documents only, so
// memory and rebuild time stay bounded whatever a namespace holds. Visibility itself is still checked on
// every search, uncached (doc-filters.ts visibleDocs).
import { sql } from 'kysely';
import { documentLabel } from '../ingest/chunk-rows.ts';
import type { ControlPlane } from '../storage/db.ts';
import { labelInitials, labelTermPieces } from './stages/route-documents.ts';
import { TITLE_MAX_CHARS } from './stages/title-terms.ts';
import { analyzeWords } from '../analysis/analyzer.ts';

/** How long a project's fingerprint is trusted before it is read again, in milliseconds. */
export const LABEL_TTL_MS = 5_000;
/** Most documents whose labels are indexed per project; larger namespaces route among the candidates only. */
export const MAX_LABEL_DOCS = 20_000;
/** Shortest query term that also names by the label words it begins (LabelSet.naming). */
export const MIN_PREFIX = 3;
/** Projects whose label indexes are kept at once (least recently used dropped first). */
const MAX_PROJECTS = 256;
/**
 * Documents whose labels are kept over all projects (least recently used projects dropped first): memory
 * follows the working set, not the number of projects (≈ 0.5 KB a document with its term index).
 */
export const MAX_CACHED_LABEL_DOCS = 200_000;

export interface LabelledDoc {
  title: string;
  filename?: string;
  /** Chunks of the document (absent = unknown). */
  chunks?: number;
}

/** One project's labels: the documents, and per stemming language the term → documents index. */
export class LabelSet {
  private readonly byLang = new Map<string, { whole: Map<string, string[]>; pieces: Map<string, string[]> }>();
  private readonly sortedByLang = new Map<string, string[]>();
  private initials: Map<string, string[]> | null = null;

  constructor(readonly docs: ReadonlyMap<string, LabelledDoc>) {}

  /**
   * Word → documents whose label writes it (each written word's own term, analysed with `lang` and
   * unstemmed, as title-terms.ts analyses titles), and piece → documents for the parts of its letter/digit
   * compounds ("fy15" → fy, 15; route-documents.ts labelTermPieces: "2022q4" → 2022, q4). A piece narrows
   * but never names. Built on first use per language.
   */
  terms(lang: string | null): { whole: ReadonlyMap<string, string[]>; pieces: ReadonlyMap<string, string[]> } {
    const key = lang ?? '';
    let index = this.byLang.get(key);
    if (!index) {
      const whole = new Map<string, string[]>();
      const pieces = new Map<string, string[]>();
      const add = (m: Map<string, string[]>, t: string, id: string) => {
        const list = m.get(t);
        if (!list) m.set(t, [id]); else if (list[list.length - 1] !== id) list.push(id);
      };
      for (const [id, d] of this.docs) {
        const label = documentLabel(d.title, d.filename ?? '').slice(0, TITLE_MAX_CHARS);
        // Stemmed with the query's language and unstemmed, as the query's word groups hold both forms.
        for (const l of lang ? [lang, null] : [null]) {
          for (const [word, ...parts] of analyzeWords(label, l)) {
            add(whole, word, id);
            for (const p of [...parts, ...labelTermPieces(word).split(' ').slice(1)]) if (p) add(pieces, p, id);
          }
        }
      }
      this.byLang.set(key, (index = { whole, pieces }));
    }
    return index;
  }

  /**
   * Documents whose label holds a whole word equal to `term` or, for a term of MIN_PREFIX or more
   * characters with a letter, beginning with it: file names run a name's words together ("MGMRESORTS",
   * "JOHNSONJOHNSON"), so "MGM" names every file MGMRESORTS_…, not only those whose title writes "MGM".
   * Cost: a binary search in the sorted whole words plus the matches.
   */
  naming(term: string, lang: string | null): string[] {
    const { whole } = this.terms(lang);
    if (term.length < MIN_PREFIX || !/\p{L}/u.test(term)) return whole.get(term) ?? [];
    const key = lang ?? '';
    let sorted = this.sortedByLang.get(key);
    if (!sorted) this.sortedByLang.set(key, (sorted = [...whole.keys()].sort()));
    let lo = 0, hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < term) lo = mid + 1; else hi = mid;
    }
    const out = new Set<string>();
    for (let i = lo; i < sorted.length && sorted[i].startsWith(term); i++) for (const d of whole.get(sorted[i])!) out.add(d);
    return [...out];
  }

  /** Initialism → documents whose label allows it (route-documents.ts labelInitials). Built on first use. */
  initialisms(): ReadonlyMap<string, string[]> {
    if (!this.initials) {
      this.initials = new Map();
      for (const [id, d] of this.docs) {
        for (const s of labelInitials(documentLabel(d.title, d.filename ?? ''))) {
          const list = this.initials.get(s);
          if (list) list.push(id); else this.initials.set(s, [id]);
        }
      }
    }
    return this.initials;
  }
}

/** Per-project cache of LabelSets, refreshed when the project's visible documents change. */
export class LabelIndex {
  private readonly entries = new Map<string, { at: number; fingerprint: string; set: Promise<LabelSet | null>; size: number }>();

  /** @param ttlMs how long a fingerprint is trusted (default LABEL_TTL_MS) */
  constructor(private readonly cp: ControlPlane, private readonly ttlMs = LABEL_TTL_MS) {}

  /**
   * The project's label set, current as of at most `ttlMs` ago.
   * @returns null when the project holds more than MAX_LABEL_DOCS visible documents
   * @throws what the control plane throws
   */
  async get(projectId: string): Promise<LabelSet | null> {
    const now = Date.now();
    const hit = this.entries.get(projectId);
    if (hit) {
      this.entries.delete(projectId);
      this.entries.set(projectId, hit);
      if (now - hit.at < this.ttlMs) return hit.set;
    }
    const fingerprint = await this.fingerprint(projectId);
    const again = this.entries.get(projectId);
    if (again && again.fingerprint === fingerprint) {
      again.at = now;
      return again.set;
    }
    const size = Number(fingerprint.replace(/^over:/, '').split(':')[0]) || 0;
    const set = fingerprint.startsWith('over:') ? Promise.resolve(null) : this.read(projectId);
    this.entries.delete(projectId);
    this.entries.set(projectId, { at: now, fingerprint, set, size: fingerprint.startsWith('over:') ? 0 : size });
    this.evict();
    set.catch(() => this.entries.delete(projectId));
    return set;
  }

  /** Drop least recently used projects past MAX_PROJECTS or MAX_CACHED_LABEL_DOCS (the newest always stays). */
  private evict(): void {
    let total = 0;
    for (const e of this.entries.values()) total += e.size;
    for (const [id, e] of this.entries) {
      if (this.entries.size <= 1 || (this.entries.size <= MAX_PROJECTS && total <= MAX_CACHED_LABEL_DOCS)) break;
      this.entries.delete(id);
      total -= e.size;
    }
  }

  /** Count and latest ingest time of the project's visible documents (the (project_id, state) index). */
  private async fingerprint(projectId: string): Promise<string> {
    const row = await this.cp.db.selectFrom('documents')
      .select([sql<number>`count(*)`.as('n'), sql<string>`max(ingested_at)`.as('latest')])
      .where('project_id', '=', projectId).where('state', '=', 'visible')
      .executeTakeFirst();
    const n = Number(row?.n ?? 0);
    return `${n > MAX_LABEL_DOCS ? 'over:' : ''}${n}:${row?.latest ?? ''}`;
  }

  private async read(projectId: string): Promise<LabelSet> {
    const rows = await this.cp.db.selectFrom('documents').select(['doc_id', 'title', 'filename', 'chunk_count'])
      .where('project_id', '=', projectId).where('state', '=', 'visible')
      .limit(MAX_LABEL_DOCS + 1)
      .execute();
    return new LabelSet(new Map(rows.map((r) => [r.doc_id, { title: r.title ?? '', filename: r.filename ?? undefined, chunks: r.chunk_count }])));
  }
}
