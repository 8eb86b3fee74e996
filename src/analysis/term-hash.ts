// A chunk's analysed terms as a sorted set of 32-bit hashes, stored at ingest: the coverage
// feature (search/stages/coverage.ts) asks of every candidate "which query terms does it hold?". Answering
// from the stored term string meant reading ≈ 2 KB of UTF-8 per candidate from the engine, decoding it into
// a JavaScript string and scanning it; a sorted hash set is ≈ 4 bytes per distinct term and answers each
// query term with a binary search.
//
// Hash: FNV-1a, 32 bits, over the term's UTF-16 code units (Fowler–Noll–Vo, IETF draft-eastlake-fnv).
// A hash set can only err one way: a term the chunk lacks reported present when another of its terms has
// the same hash. With ≈ 170 distinct terms a chunk the chance is 170 / 2³² ≈ 4·10⁻⁸ per (query term,
// candidate), about one flag in 6 000 searches of 20 terms × 200 candidates.

/** FNV-1a 32-bit offset basis and prime (IETF draft-eastlake-fnv); also used by search/stages/group-match.ts termMatcher's scan. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/**
 * The 32-bit FNV-1a hash of a term (over UTF-16 code units), as an unsigned integer.
 * @param term one analysed term (no spaces)
 * @returns 0 … 2³² − 1
 */
export function termHash(term: string): number {
  return fnv(FNV_OFFSET, term) >>> 0;
}

/** FNV-1a state `h` advanced over the UTF-16 code units of `s` (not yet made unsigned). */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/**
 * The sorted distinct hashes of the terms of a space-separated term string (the `tokens` column).
 * @param tokens analysed terms joined by single spaces (empty terms are skipped)
 * @returns ascending, without repeats
 */
export function termHashSet(tokens: string): Uint32Array {
  const hashes: number[] = [];
  let h = FNV_OFFSET;
  let len = 0;
  for (let i = 0; i <= tokens.length; i++) {
    const c = i < tokens.length ? tokens.charCodeAt(i) : 32;
    if (c !== 32) { h = Math.imul(h ^ c, FNV_PRIME); len++; continue; }
    if (len > 0) hashes.push(h >>> 0);
    h = FNV_OFFSET;
    len = 0;
  }
  return sortedDistinct(hashes);
}

/**
 * True when `hash` is in the set (binary search).
 * @param set  termHashSet() output (ascending)
 * @param hash termHash() of one term
 */
export function hasTermHash(set: Uint32Array, hash: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = set[mid];
    if (v === hash) return true;
    if (v < hash) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The 32-bit FNV-1a hash of an ordered pair of adjacent terms: termHash(`${a} ${b}`) (terms never hold a
 * space, so a pair's hash is the hash of its two terms joined by one), computed without building the string.
 * @param a the first term
 * @param b the term that follows it
 * @returns 0 … 2³² − 1
 */
export function pairHash(a: string, b: string): number {
  return fnv(Math.imul(fnv(FNV_OFFSET, a) ^ 32, FNV_PRIME), b) >>> 0;
}

/**
 * The sorted distinct pairHash() values of the adjacent CONTENT terms of a term string: terms in `skip`
 * (stopwords, prompt words: analysis/stopwords.ts phraseSkipTerms) are removed first, so "statement of cash
 * flows" yields (statement, cash) and (cash, flow) — the phrase evidence that coverage.ts compares with the
 * query's own adjacent content words (search/stages/analyze-query.ts `pairs`). Linear in the string's
 * length plus a sort of its pairs.
 * @param tokens analysed terms joined by single spaces (the `tokens` column)
 * @param skip   terms that are not content words
 * @returns ascending, without repeats (a chunk of ≈ 300 terms has ≈ 150–250 pairs)
 */
export function pairHashSet(tokens: string, skip: ReadonlySet<string>): Uint32Array {
  const hashes: number[] = [];
  let prev: string | null = null;
  for (const term of tokens.split(' ')) {
    if (term.length === 0 || skip.has(term)) continue;
    if (prev !== null && prev !== term) hashes.push(pairHash(prev, term));
    prev = term;
  }
  return sortedDistinct(hashes);
}

/** The distinct values of `hashes` as an ascending Uint32Array (the stored form of termHashSet and pairHashSet). */
function sortedDistinct(hashes: number[]): Uint32Array {
  const sorted = Uint32Array.from(hashes).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i];
  return sorted.slice(0, n);
}
