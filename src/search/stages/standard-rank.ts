// The standard tier's ranking as one function: fuse (RRF) -> lexical-anchor cosine -> group into hits ->
// relevance score, best first. The search service and the scripts that fit models on its output
// (bench/fit-reranker.ts, bench/lib/scifact-candidates.ts) call this, so a stage added here reaches all of
// them — a model fitted on a different chain than the one that serves would be miscalibrated.
import type { IndexHit } from '../../storage/namespace-index.ts';
import type { QueryStats, Region } from '../types.ts';
import { withAnchorSimilarity } from './anchor.ts';
import { fuseRrf } from './fuse.ts';
import { groupRegions } from './group-regions.ts';
import { scoreRegions } from './score.ts';

/**
 * Rank the candidates of one query.
 * @param vector vector hits best first (visible documents only), or null when vector search did not run
 * @param bm25   BM25 hits best first (visible documents only), or null
 * @param stats  query statistics (fuse.ts queryStats) of the same lists
 * @returns scored regions, best first (score.ts scoreRegions order)
 */
export function rankStandard(vector: IndexHit[] | null, bm25: IndexHit[] | null, stats: QueryStats): Region[] {
  return scoreRegions(groupRegions(withAnchorSimilarity(fuseRrf(vector, bm25), bm25)), stats);
}
