// Stage 3 of retrieval: Reciprocal Rank Fusion of the vector and BM25 lists (Cormack, Clarke & Büttcher,
// "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009):
// rrf(d) = Σ_lists 1 / (k + rank_list(d)), with k = 60 as in the paper and 1-based ranks. RRF needs no
// score normalisation, which matters because cosine and BM25 live on unrelated scales.
import type { IndexHit } from '../../storage/namespace-index.ts';
import type { FusedChunk, QueryStats } from '../types.ts';

/** The RRF constant k (Cormack et al. 2009). */
export const RRF_K = 60;

/**
 * Fuse two ranked lists into one, best first.
 * @param vector vector hits best first (score = cosine), or null when that retriever did not run
 * @param bm25   BM25 hits best first (score = BM25), or null
 * @returns fused chunks ordered by RRF descending; ties broken by BM25 rank, then vector rank, then id
 *          (deterministic). A chunk missing from a list has null rank/score for it.
 */
export function fuseRrf(vector: IndexHit[] | null, bm25: IndexHit[] | null, k = RRF_K): FusedChunk[] {
  const byId = new Map<string, FusedChunk>();
  const entry = (h: IndexHit): FusedChunk => {
    let e = byId.get(h.chunk.id);
    if (!e) {
      e = { chunk: h.chunk, ann: null, bm25: null, annRank: null, bm25Rank: null, rrf: 0, vector: null, anchor: null, tokens: null, termHashes: null, coverage: null };
      byId.set(h.chunk.id, e);
    }
    if (!e.vector && h.vector) e.vector = h.vector;
    if (e.tokens === null && h.tokens !== undefined) e.tokens = h.tokens;
    if (e.termHashes === null && h.termHashes !== undefined) e.termHashes = h.termHashes;
    if (!e.pairHashes && h.pairHashes !== undefined) e.pairHashes = h.pairHashes;
    return e;
  };
  (vector ?? []).forEach((h, i) => {
    const e = entry(h);
    if (e.annRank !== null) return; // duplicate row: keep the better rank
    e.ann = h.score;
    e.annRank = i + 1;
    e.rrf += 1 / (k + i + 1);
  });
  (bm25 ?? []).forEach((h, i) => {
    const e = entry(h);
    if (e.bm25Rank !== null) return;
    e.bm25 = h.score;
    e.bm25Rank = i + 1;
    e.rrf += 1 / (k + i + 1);
  });
  const INF = Number.MAX_SAFE_INTEGER;
  return [...byId.values()].sort((a, b) =>
    b.rrf - a.rrf
    || (a.bm25Rank ?? INF) - (b.bm25Rank ?? INF)
    || (a.annRank ?? INF) - (b.annRank ?? INF)
    || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0));
}

/**
 * Query-level statistics used to normalise and impute scoring features.
 * A chunk absent from a BM25 list that came back full scored at most the list's lowest value, so that
 * value is imputed; a list that came back short (`bm25Complete`) returned every match, so an absent chunk
 * has BM25 0 (no term matched). Cosine is always imputed with the list's lowest value.
 */
export function queryStats(vector: IndexHit[] | null, bm25: IndexHit[] | null, bm25Complete: boolean, termCount: number, chunkCount: number): QueryStats {
  const v = vector ?? [];
  const b = bm25 ?? [];
  return {
    termCount,
    matchable: termCount,
    chunkCount: Math.max(1, chunkCount),
    maxBm25: b.length ? Math.max(...b.map((h) => h.score)) : 0,
    maxAnn: v.length ? Math.max(...v.map((h) => h.score)) : null,
    annFloor: v.length ? Math.min(...v.map((h) => h.score)) : null,
    bm25Floor: !bm25Complete && b.length ? Math.min(...b.map((h) => h.score)) : 0,
  };
}
