// The sections a query names inside one document (stages/section-naming.ts), searched on their own: when
// a search in one document (`searchInDoc`, or a document the namespace search routes to) names a section by
// its heading — "… from the statement of income and the cash flow statement" — the first chunks of that
// section are read from both retrievers (restricted to them, so a statement table the document's top 100
// left out is read too) and scored among themselves, as a document the query names is scored among its own
// candidates (stages/standard-rank.ts scopeOf); each such region keeps the better of that score and the
// document ranking's. Over the 43 filings of FinanceBench the evidence of a question that names its
// statements was a statement table ranked 40th to 120th in its filing, under narrative that repeats the
// question's words (decision record 2026-11-29-named-sections).
import { LRUCache } from 'lru-cache';
import { analyze } from '../analysis/analyzer.ts';
import { queryStopTerms } from '../analysis/stopwords.ts';
import type { ChunkFilter, NamespaceIndex } from '../storage/namespace-index.ts';
import type { AnalysedQuery } from './stages/analyze-query.ts';
import { queryStats } from './stages/fuse.ts';
import { retrieve, type LexicalQuery } from './stages/retrieve.ts';
import { byScore } from './stages/score.ts';
import { belowNamed, namedSectionChunks, outlineSections, type OutlineSection } from './stages/section-naming.ts';
import { rankStandard, type RankOptions } from './stages/standard-rank.ts';
import type { Region } from './types.ts';

/** Documents whose outlines are kept (per process; a few KB each). */
export const MAX_CACHED_OUTLINES = 2_000;

/**
 * How long an outline is reused (ms). A document is immutable once visible, but a re-ingested source may
 * keep its doc_id: a stale outline only mis-aims which chunks are read for a minute, never what is shown
 * (the chunks are read from the index at search time).
 */
export const OUTLINE_TTL_MS = 60_000;

/** The outlines (stages/section-naming.ts outlineSections) of documents, read once and cached. */
export class OutlineCache {
  private readonly cache = new LRUCache<string, Promise<OutlineSection[]>>({ max: MAX_CACHED_OUTLINES, ttl: OUTLINE_TTL_MS });

  constructor(private readonly index: NamespaceIndex) {}

  /**
   * The outline of one document, its headings analysed with `lang`.
   * @throws whatever the index throws (the entry is then forgotten)
   */
  of(namespace: string, docId: string, lang: string | null): Promise<OutlineSection[]> {
    const key = `${namespace}\u0000${docId}\u0000${lang ?? ''}`;
    let got = this.cache.get(key);
    if (!got) {
      const stop = queryStopTerms(lang);
      // A lone Latin letter or digit is no content word of a heading: it is a numbering ("Note 5") or a word
      // the PDF text layer split ("Statement of Cash Flow s").
      const content = (t: string) => !stop.has(t) && !/^[a-z0-9]$/.test(t);
      got = this.index.getHeadings(namespace, docId).then((rows) => outlineSections(rows, (text) => analyze(text, lang).filter(content)));
      got.catch(() => this.cache.delete(key));
      this.cache.set(key, got);
    }
    return got;
  }
}

/** One in-document ranking and what it was made from. */
export interface SectionRequest {
  namespace: string;
  docId: string;
  /** The search's own prefilter (attributes and exclusions stay in force). */
  filter: ChunkFilter;
  analysed: AnalysedQuery;
  /** Analysed terms of the document's label (title and file name). */
  labelTerms: ReadonlySet<string>;
  embed: () => Promise<Float32Array>;
  lexical: () => Promise<LexicalQuery>;
  chunkCount: number;
  /** The in-document ranking's options (titles included). */
  rankOptions: RankOptions;
  /** The document's regions as its own ranking scored them. */
  regions: Region[];
  /** The request's min_relevance: the regions outside the named sections are placed below those that pass it. */
  minRelevance: number;
}

/**
 * The document's regions with the sections the query names scored among themselves.
 * @returns `r.regions` unchanged when the query names no section; else the regions outside the named
 *          chunks plus the named sections' regions (each at the better of its two scores), best first
 * @throws whatever the index or the embedder throws
 */
export async function withNamedSections(index: NamespaceIndex, outlines: OutlineCache, r: SectionRequest): Promise<Region[]> {
  const sections = await outlines.of(r.namespace, r.docId, r.analysed.stemLang);
  const chunks = namedSectionChunks(sections, new Set(r.analysed.groups.flat()), r.labelTerms);
  if (chunks.length === 0) return r.regions;
  const read = await retrieve(index, r.namespace, { embed: r.embed, lexical: r.lexical }, { ...r.filter, docIds: [r.docId], chunkIndices: chunks }, chunks.length);
  const stats = queryStats(read.vector, read.bm25, true, r.analysed.termCount, r.chunkCount);
  const { regions, stats: scored } = rankStandard(read.vector, read.bm25, stats, { ...r.rankOptions, scoped: true });
  if (regions.length === 0) return r.regions;
  const named = new Set(chunks);
  const inNamed = (x: Region) => x.docId === r.docId && x.members.some((m) => named.has(m.chunk.chunk_index));
  // A region of the document ranking that overlaps a named section's region lends it its score if better.
  const before = r.regions.filter(inNamed);
  for (const x of regions) {
    x.stats = scored;
    const overlap = before.filter((b) => b.chunksetIndex === x.chunksetIndex && b.from <= x.to && x.from <= b.to);
    x.score = Math.max(x.score, ...overlap.map((b) => b.score));
  }
  // The rest of the document never outranks a passing region of a section the query names: the query said
  // where to look, and the passages that only share its words (a "fixed-income portfolio" for "the statement
  // of income") would otherwise fill the budget first (belowNamed).
  const outside = r.regions.filter((x) => !inNamed(x));
  belowNamed(outside, regions, r.minRelevance);
  return [...outside, ...regions].sort(byScore);
}
