// Runs one BEIR query through each retrieval variant of docsearch for the quality benchmarks:
//   bm25     NamespaceIndex.bm25Search alone, with the service's own query analysis (language detection,
//            fallback to the namespace's dominant language)
//   vector   NamespaceIndex.vectorSearch alone, with the configured embedder's query vector
//   standard SearchService.search (fusion + calibrated score), format json
//   advanced SearchService.search with retrieval_tier = advanced (adds the reranker)
// Service searches use min_relevance 0, a 500k-token budget and no expansion, so they return every
// candidate hit in rank order (nDCG/recall need the full ranking, not what a prompt would get).
import { analyseQuery } from '../../src/search/stages/analyze-query.ts';
import { dominantLanguage } from '../../src/search/doc-filters.ts';
import type { SearchJsonResponse } from '../../src/search/types.ts';
import type { Services } from '../../src/services.ts';
import { dedupe } from './beir.ts';

export type Variant = 'bm25' | 'vector' | 'standard' | 'advanced';
export const VARIANTS: Variant[] = ['bm25', 'vector', 'standard', 'advanced'];

/** Candidates per retriever for the single-retriever variants (recall@100 needs at least 100). */
const ALONE_LIMIT = 100;

export interface RankedHit {
  doc: string;
  score: number;
}

export interface QualityTarget {
  services: Services;
  projectId: string;
  namespace: string;
}

/** The project's fallback stemming language, looked up once (as the service caches it). */
export async function fallbackLanguage(t: QualityTarget): Promise<string | null> {
  return dominantLanguage(t.services.cp, t.projectId);
}

/**
 * Ranked documents of `variant` for `query` (duplicates of a document removed, first kept) and, for the
 * service variants, every hit with its score (for the calibration check).
 */
export async function runVariant(t: QualityTarget, variant: Variant, query: string, fallback: string | null): Promise<{ docs: string[]; hits: RankedHit[]; ms: number }> {
  const t0 = performance.now();
  const s = t.services;
  if (variant === 'bm25') {
    let a = analyseQuery(query, null);
    if (a.detectedLang === null && fallback) a = analyseQuery(query, fallback);
    const hits = await s.index.bm25Search(t.namespace, a.terms, ALONE_LIMIT);
    return { docs: dedupe(hits.map((h) => h.chunk.doc_id)), hits: [], ms: performance.now() - t0 };
  }
  if (variant === 'vector') {
    const hits = await s.index.vectorSearch(t.namespace, await s.embedder.embedQuery(query), ALONE_LIMIT);
    return { docs: dedupe(hits.map((h) => h.chunk.doc_id)), hits: [], ms: performance.now() - t0 };
  }
  const res = (await s.search.search(
    { projectId: t.projectId, namespace: t.namespace },
    { query, format: 'json', min_relevance: 0, target_tokens: 500_000, max_tokens: 500_000, expand_tightness: 0, retrieval_tier: variant },
    { inDoc: false },
  )) as SearchJsonResponse;
  const hits = res.results.map((h) => ({ doc: h.doc_id, score: h.score }));
  return { docs: dedupe(hits.map((h) => h.doc)), hits, ms: performance.now() - t0 };
}

/** Percentile (nearest rank) of a list of numbers. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
