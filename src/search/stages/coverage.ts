// Stage 3c of retrieval: query-term coverage of every fused chunk — the share of the query's matchable
// content that the chunk holds, each query word weighted by its IDF within the candidate pool. It is an
// absolute feature (issue 11): unlike "BM25 / best BM25" it does not fall for a second relevant passage
// because a first one exists, and it does not depend on the namespace's size or the query's length.
//   df(w)   candidates (vector ∪ BM25 lists, ≤ 200) holding any term of word w's group
//   idf(w)  ln(1 + (P − df + 0.5) / (df + 0.5)), P = pool size (the BM25 IDF of Robertson–Spärck Jones
//           with +1 as in Lucene, computed over the pool; for namespaces whose matches all fit in the
//           pool it is the namespace's own IDF)
//   coverage(c) = Σ_{w ∈ c} idf(w) / Σ_{w : df(w) > 0} idf(w)
// Words no candidate holds (instruction filler of a verbose question, a word in another language) are
// left out of the denominator: they cannot be matched by any hit, so they must not lower every score.
// Cost: one Set per candidate over its stored analysed terms, O(total candidate terms + P · words).
import type { FusedChunk } from '../types.ts';

/**
 * Set `coverage` on each fused chunk (null when the engine returned no `tokens` for it).
 * @param fused  fused chunks (fuse.ts), not modified
 * @param groups query word groups (analyze-query.ts): alternatives of one word
 * @returns new FusedChunk objects in the same order, and how many words occur in the pool at all
 */
export function withCoverage(fused: FusedChunk[], groups: string[][]): { fused: FusedChunk[]; matchable: number } {
  const has: Array<boolean[] | null> = fused.map((f) => {
    if (f.tokens === null) return null;
    const set = new Set(f.tokens.split(' '));
    return groups.map((g) => g.some((t) => set.has(t)));
  });
  const P = fused.length;
  const idf = groups.map((_, w) => {
    let df = 0;
    for (const h of has) if (h?.[w]) df++;
    return df === 0 ? 0 : Math.log(1 + (P - df + 0.5) / (df + 0.5));
  });
  const total = idf.reduce((s, x) => s + x, 0);
  const matchable = idf.filter((x) => x > 0).length;
  const out = fused.map((f, i) => {
    const h = has[i];
    if (!h) return { ...f, coverage: null };
    let got = 0;
    h.forEach((present, w) => { if (present) got += idf[w]; });
    return { ...f, coverage: total > 0 ? got / total : 0 };
  });
  return { fused: out, matchable };
}
