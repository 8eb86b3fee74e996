// Which query word groups a candidate holds, from what a stored row keeps of its text: its term-hash set
// (hashMatcher, rows written since the hashes were stored) or its analysed term string (termMatcher). Both
// answer the same booleans; coverage.ts (coverage, document coverage, naming) and title-terms.ts (labels) use them.
import { FNV_OFFSET, FNV_PRIME, hasTermHash, termHash } from '../../analysis/term-hash.ts';

/** Hash bits kept: 30, so that Map keys stay small integers (V8 Smis) instead of heap numbers. */
const HASH_MASK = 0x3fffffff;

/**
 * A scanner of a candidate's stored terms (one space-separated string) that marks the query word groups it
 * holds — the same answer as splitting the string and looking every term up in a term → groups map, without
 * allocating a string per term: each term is hashed (FNV-1a over its UTF-16 code units) as it is read, and a
 * hash found among the query's terms is confirmed by comparing the characters. 200 candidates of ≈ 300
 * terms are read per search; the split's 60 000 short strings cost ≈ 3.6 ms of main-thread time plus their
 * garbage (profile of a filled search at 100k chunks); this scan ≈ 2.2 ms, no garbage.
 * @param groups query word groups (alternatives of one word)
 * @returns scan(tokens, h): sets h[w] = true for every group w with a term in `tokens`
 */
export function termMatcher(groups: string[][]): (tokens: string, h: boolean[]) => void {
  const byHash = new Map<number, Array<{ term: string; groups: number[] }>>();
  groups.forEach((g, w) => g.forEach((term) => {
    if (!term) return;
    const key = termHash(term) & HASH_MASK;
    const list = byHash.get(key) ?? [];
    const entry = list.find((e) => e.term === term);
    if (entry) { if (!entry.groups.includes(w)) entry.groups.push(w); } else list.push({ term, groups: [w] });
    byHash.set(key, list);
  }));
  return (tokens, h) => {
    let start = 0;
    let hash = FNV_OFFSET;
    for (let i = 0; i <= tokens.length; i++) {
      const c = i < tokens.length ? tokens.charCodeAt(i) : 32;
      if (c !== 32) { hash = Math.imul(hash ^ c, FNV_PRIME); continue; }
      const list = i > start ? byHash.get(hash & HASH_MASK) : undefined;
      if (list) {
        for (const e of list) if (e.term.length === i - start && tokens.startsWith(e.term, start)) for (const w of e.groups) h[w] = true;
      }
      start = i + 1;
      hash = FNV_OFFSET;
    }
  };
}

/**
 * The hash-set counterpart of termMatcher: marks the groups with a term whose hash (analysis/term-hash.ts)
 * is in a candidate's stored set — the same booleans, but for the rare hash collision (term-hash.ts: about
 * one flag in 6 000 searches), at the cost of one binary search per query term (≈ 20 × 8 comparisons per
 * candidate instead of a scan of its ≈ 2 000 characters).
 * @param groups query word groups (alternatives of one word)
 * @returns match(set, h): sets h[w] = true for every group w with a term in `set`
 */
export function hashMatcher(groups: string[][]): (set: Uint32Array, h: boolean[]) => void {
  const hashes = groups.map((g) => g.filter((t) => t.length > 0).map(termHash));
  return (set, h) => {
    for (let w = 0; w < hashes.length; w++) {
      if (h[w]) continue;
      const terms = hashes[w];
      for (let t = 0; t < terms.length; t++) if (hasTermHash(set, terms[t])) { h[w] = true; break; }
    }
  };
}
