// Phrase evidence for coverage.ts (`pair_cov`, `pair_cov_pool`; docs/search.md): which of the query's
// phrase pairs (analyze-query.ts `pairs`, adjacent content words of a sentence) each candidate holds
// adjacent, answered from the pair hashes stored at ingest (analysis/term-hash.ts pairHashSet) with binary
// searches — no text is read at query time — and the weighted shares coverage.ts turns into features.
import { hasTermHash, pairHash } from '../../analysis/term-hash.ts';
import type { FusedChunk } from '../types.ts';

/**
 * Which of the query's phrase pairs each candidate holds adjacent: one of the term combinations of the
 * pair's two groups (stemmed and unstemmed alternatives) is among its stored pair hashes (binary search).
 * @param groups query word groups (analyze-query.ts); pairs: group index pairs; fused: the candidates
 * @returns per candidate, per pair (same order as `pairs`); null for a candidate that stores no pair hashes
 */
export function pairHoldings(groups: string[][], pairs: Array<[number, number]>, fused: FusedChunk[]): Array<boolean[] | null> {
  const hashes = pairs.map(([a, b]) => groups[a].flatMap((x) => groups[b].map((y) => pairHash(x, y))));
  return fused.map((f) => {
    const set = f.pairHashes;
    return set ? hashes.map((hs) => hs.some((x) => hasTermHash(set, x))) : null;
  });
}

/**
 * The phrase-pair shares of every candidate (coverage.ts file header): the query's pairs whose two words are matchable
 * (pool IDF > 0), each weighing min(weight(a), weight(b)). `all` divides by every such pair, `inPool` by
 * those at least one candidate holds (as coverage leaves out words no candidate holds: a pair no passage
 * holds adjacent is rarely a phrase).
 * @param pairs group index pairs (analyze-query.ts); idf: pool IDF per group; weight: a word's query
 *              weight × segment factor; held: pairHoldings(); inPool: per pair, whether a candidate holds it
 * @returns per candidate its shares in [0, 1] (null: it stores no pair hashes), or null when no pair
 *          counts (the caller then uses coverage). Cost: candidates × pairs × combinations binary searches.
 */
export function pairShares(pairs: Array<[number, number]>, idf: number[], weight: (w: number) => number, held: Array<boolean[] | null>, inPool: boolean[]): Array<{ all: number; inPool: number } | null> | null {
  const w = pairs.map(([a, b]) => (idf[a] > 0 && idf[b] > 0 ? Math.min(weight(a), weight(b)) : 0));
  const total = w.reduce((s, x) => s + x, 0);
  if (total <= 0) return null;
  const poolTotal = w.reduce((s, x, k) => s + (inPool[k] ? x : 0), 0);
  return held.map((h) => {
    if (!h) return null;
    const got = w.reduce((s, x, k) => s + (h[k] ? x : 0), 0);
    return { all: got / total, inPool: poolTotal > 0 ? got / poolTotal : 0 };
  });
}
