// Phrase evidence for coverage.ts (`pair_cov`, `pair_cov_pool`; docs/search.md): which of the query's
// phrase pairs (analyze-query.ts `pairs`, adjacent content words of a sentence) each candidate holds
// adjacent, answered from the pair hashes stored at ingest (analysis/term-hash.ts pairHashSet) with binary
// searches — no text is read at query time — and the weighted shares coverage.ts turns into features.
import { hasTermHash, pairHash } from '../../analysis/term-hash.ts';
import type { FusedChunk } from '../types.ts';

/** Per candidate, per query pair, 1 when it holds the pair (null: it stores no pair hashes); per pair, 1 when any candidate does. */
export interface PairHoldings {
  held: Array<Uint8Array | null>;
  inPool: Uint8Array;
}

/**
 * Which of the query's phrase pairs each candidate holds adjacent: one of the term combinations of the
 * pair's two groups (stemmed and unstemmed alternatives) is among its stored pair hashes (binary search).
 * Only pairs of two matchable words are looked up: a chunk that holds a pair holds both of its words.
 * Cost: candidates × looked-up pairs × combinations (≤ 9) binary searches over ≈ 150 stored pairs, no
 * allocation per lookup (≈ 0.5 ms for 200 candidates and 16 pairs).
 * @param groups    query word groups (analyze-query.ts)
 * @param pairs     group index pairs (analyze-query.ts `pairs`)
 * @param fused     the candidates
 * @param matchable whether a group occurs in the pool at all (pool IDF > 0)
 * @param pairTerms per pair, the stored term pairs that hold it (analyze-query.ts `pairTerms`); default every
 *                  term of the first group × every term of the second
 */
export function pairHoldings(groups: string[][], pairs: Array<[number, number]>, fused: FusedChunk[], matchable: (w: number) => boolean, pairTerms?: Array<Array<[string, string]>>): PairHoldings {
  const live: number[] = [];
  const starts: number[] = [0];
  const flat: number[] = [];
  pairs.forEach(([a, b], k) => {
    if (!matchable(a) || !matchable(b)) return;
    live.push(k);
    if (pairTerms) for (const [x, y] of pairTerms[k]) flat.push(pairHash(x, y));
    else for (const x of groups[a]) for (const y of groups[b]) flat.push(pairHash(x, y));
    starts.push(flat.length);
  });
  const hashes = Uint32Array.from(flat);
  const inPool = new Uint8Array(pairs.length);
  const held = fused.map((f) => {
    const set = f.pairHashes;
    if (!set) return null;
    const h = new Uint8Array(pairs.length);
    for (let j = 0; j < live.length; j++) {
      for (let x = starts[j]; x < starts[j + 1]; x++) {
        if (hasTermHash(set, hashes[x])) { h[live[j]] = 1; inPool[live[j]] = 1; break; }
      }
    }
    return h;
  });
  return { held, inPool };
}

/**
 * The phrase-pair shares of every candidate (coverage.ts file header): the query's pairs whose two words
 * are matchable (pool IDF > 0), each weighing min(weight(a), weight(b)). `all` divides by every such pair,
 * `inPool` by those at least one candidate holds (as coverage leaves out words no candidate holds: a pair
 * no passage holds adjacent is rarely a phrase).
 * @param pairs group index pairs (analyze-query.ts); idf: pool IDF per group; weight: a word's query
 *              weight × segment factor; holdings: pairHoldings()
 * @returns per candidate its shares in [0, 1] (null: it stores no pair hashes), or null when no pair
 *          counts (the caller then uses coverage)
 */
export function pairShares(pairs: Array<[number, number]>, idf: number[], weight: (w: number) => number, holdings: PairHoldings): Array<{ all: number; inPool: number } | null> | null {
  const w = pairs.map(([a, b]) => (idf[a] > 0 && idf[b] > 0 ? Math.min(weight(a), weight(b)) : 0));
  let total = 0;
  let poolTotal = 0;
  for (let k = 0; k < w.length; k++) { total += w[k]; if (holdings.inPool[k]) poolTotal += w[k]; }
  if (total <= 0) return null;
  return holdings.held.map((h) => {
    if (!h) return null;
    let got = 0;
    for (let k = 0; k < w.length; k++) if (h[k]) got += w[k];
    return { all: got / total, inPool: poolTotal > 0 ? got / poolTotal : 0 };
  });
}
