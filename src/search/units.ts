// Retrieval tier and billing units of a search (DESIGN.md §5 "mode", "search_units"; docs/search.md).
// `mode` is the tier actually used: an advanced request (retrieval_tier = advanced, or legacy
// premium = true) answers `standard` when no reranker is configured (DOCSEARCH_RERANKER=none) or the
// reranker fails, and the caller logs why.
import type { RetrievalTier, SearchRequest } from './types.ts';

/** Tokens of returned context per extra billing unit in the advanced tier. */
export const ADVANCED_UNIT_TOKENS = 1000;

/**
 * The tier a request asked for and the tier used.
 * @param rerankerAvailable whether an advanced-tier reranker is configured
 * @returns mode used, and a log sentence when the request asked for more than it got (else null)
 */
export function resolveMode(req: Pick<SearchRequest, 'retrieval_tier' | 'premium'>, rerankerAvailable = false): { mode: RetrievalTier; reason: string | null } {
  const requested: RetrievalTier = req.retrieval_tier ?? (req.premium ? 'advanced' : 'standard');
  if (requested === 'advanced' && !rerankerAvailable) {
    return { mode: 'standard', reason: 'advanced retrieval requested but no reranker is configured; answered with the standard tier' };
  }
  return { mode: requested, reason: null };
}

/**
 * Billing units: 1 per search in the standard tier; the advanced tier adds 1 per started 1,000 tokens
 * of returned context (`tokens_estimated`). An empty result still costs its base unit.
 */
export function searchUnits(mode: RetrievalTier, contextTokens: number): number {
  return mode === 'advanced' ? 1 + Math.ceil(Math.max(0, contextTokens) / ADVANCED_UNIT_TOKENS) : 1;
}
