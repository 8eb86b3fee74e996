// Near-duplicate passages across documents: an annual filing repeats most of last year's risk factors,
// accounting policies and business description word for word, so in a namespace of many filings of one
// company the same paragraph comes back once per year, each copy scored alike. Admitting every copy spends
// the token budget on one piece of evidence (and ties of copies across documents let the budget's cluster
// rule grow the context toward max_tokens, budget.ts). A passing hit whose retrieved chunks share at least
// NEAR_DUPLICATE_JACCARD of their terms with a better hit of ANOTHER document is left out; hits of one
// document are never merged here (expansion and grouping already keep them apart).
// Resemblance of term sets as in Broder (1997), "On the resemblance and containment of documents", on the
// stored term hashes of the chunks (analysis/term-hash.ts), so no text is read.
import type { Region } from '../types.ts';

/**
 * Least Jaccard resemblance of two hits' term sets for the lower one to be a copy. Set high (Broder's
 * near-duplicate range): two filings' versions of one paragraph differ in their years and amounts and
 * still share this much; two different paragraphs on one topic share far less.
 */
export const NEAR_DUPLICATE_JACCARD = 0.8;
/** Hits examined, best first: bounds the pairwise comparisons (each a merge of two sorted hash sets). */
export const MAX_DEDUPLICATED = 48;

/**
 * Drop the hits that are near-duplicates of a better hit of another document.
 * @param regions passing hits, best first; regions without stored term hashes are always kept
 * @returns the kept hits in the same order, and how many were dropped
 */
export function dropNearDuplicates(regions: Region[]): { kept: Region[]; dropped: number } {
  const kept: Region[] = [];
  const sets: Array<{ docId: string; terms: Uint32Array }> = [];
  let dropped = 0;
  for (const [i, r] of regions.entries()) {
    const terms = i < MAX_DEDUPLICATED ? regionTerms(r) : null;
    if (terms && sets.some((s) => s.docId !== r.docId && mayResemble(s.terms, terms) && jaccard(s.terms, terms) >= NEAR_DUPLICATE_JACCARD)) {
      dropped++;
      continue;
    }
    kept.push(r);
    if (terms) sets.push({ docId: r.docId, terms });
  }
  return { kept, dropped };
}

/** The union of the term hashes of a region's retrieved chunks, ascending; null when a member stores none. */
function regionTerms(r: Region): Uint32Array | null {
  if (r.members.length === 0 || r.members.some((m) => !m.termHashes)) return null;
  if (r.members.length === 1) return r.members[0].termHashes;
  return Uint32Array.from(new Set(r.members.flatMap((m) => [...m.termHashes!]))).sort();
}

/** Size of the bottom-k sketch that rules out most pairs before the full merge. */
const SKETCH = 16;

/**
 * Cheap necessary tests for Jaccard ≥ NEAR_DUPLICATE_JACCARD: the sizes (J ≤ min/max), then Broder's
 * bottom-k estimate (the share of the k smallest hashes of A ∪ B that both hold, an unbiased estimate of J)
 * against half the bound, which a true near-duplicate passes with a wide margin.
 */
function mayResemble(a: Uint32Array, b: Uint32Array): boolean {
  if (Math.min(a.length, b.length) < NEAR_DUPLICATE_JACCARD * Math.max(a.length, b.length)) return false;
  let i = 0, j = 0, seen = 0, both = 0;
  while (seen < SKETCH && i < a.length && j < b.length) {
    if (a[i] === b[j]) { both++; i++; j++; } else if (a[i] < b[j]) i++; else j++;
    seen++;
  }
  return seen < SKETCH || both >= (NEAR_DUPLICATE_JACCARD / 2) * SKETCH;
}

/**
 * Jaccard resemblance |A ∩ B| / |A ∪ B| of two ascending hash sets, by one merge.
 * @returns 0..1 (0 for two empty sets)
 */
export function jaccard(a: Uint32Array, b: Uint32Array): number {
  let i = 0, j = 0, both = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { both++; i++; j++; } else if (a[i] < b[j]) i++; else j++;
  }
  const union = a.length + b.length - both;
  return union === 0 ? 0 : both / union;
}
