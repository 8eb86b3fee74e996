// Stage 4 of retrieval: turn fused chunks into hits. A hit is one region of one document (DESIGN.md §5):
// retrieved chunks of the same chunkset whose positions are adjacent or nearly so are merged into one
// contiguous range, so a passage split across two chunks is returned once, not twice.
import type { StoredChunk } from '../../storage/namespace-index.ts';
import type { FusedChunk, HitSignals, Region } from '../types.ts';

/**
 * Largest number of missing chunks between two retrieved chunks that still merge into one region.
 * 1 = chunks 4 and 6 merge (chunk 5 is filled in by expansion); 4 and 7 stay separate.
 */
export const MAX_MERGE_GAP = 1;

/**
 * Score (probability of relevance, score.ts chunkScore) on each side of which chunks group only with their
 * own kind: a strong chunk never joins or bridges a weak one. The spec's default `min_relevance` (0.3),
 * the score below which the service holds a chunk probably irrelevant.
 * Without it, in a namespace small enough that every chunk is a candidate (a 50-chunk filing with
 * searchInDoc), the retrieved chunks were all of the document and each hit was a whole section scored by
 * its best chunk: three sections filled a 5 000-token context and an answer scored 0.57 was left out.
 * Measured on long documents of the XQuAD training half (bench:answers --sets books): answers in context
 * equal (search 0.937, searchInDoc 0.992), mean context 2 798 → 2 584 tokens (search).
 */
export const GROUP_MIN_SCORE = 0.3;

/**
 * Most tokens of retrieved chunks one region holds: a longer run of retrieved chunks is cut into regions of
 * at most this size, each scored by its own best chunk. A hit is a passage, not a section: in a short filing
 * every chunk is a candidate, and an 8-K's exhibit of 11 chunks (2 800 tokens) scored by its best chunk took
 * half the context from the evidence ranked third. A fifth of the default `target_tokens`. Over the 43
 * FinanceBench filings `searchInDoc` 0.62 → 0.64 (development), XQuAD books (training half) unchanged
 * (decision record `2026-11-29-named-sections`).
 */
export const MAX_REGION_TOKENS = 1_000;

/**
 * Group fused chunks into regions.
 * @param fused chunks best first (fuse.ts order)
 * @param maxGap largest number of unretrieved chunks bridged inside a region
 * @param strong whether a chunk is strong (chunkScore ≥ GROUP_MIN_SCORE); a region holds chunks of one kind
 *               only. Absent = every chunk alike (the grouping by position alone)
 * @param maxTokens most tokens (`token_count`) of the chunks of one region (MAX_REGION_TOKENS); a chunk
 *               larger than that alone is a region of its own
 * @returns regions ordered by their best member's fused rank. Each region's signals are the maxima over
 *          its members (ann, bm25: null when no member has that signal; rrf: the best member's value;
 *          likewise `anchor`);
 *          `chunks` holds the members' chunks in document order (gaps are filled by expand.ts); score 0.
 */
export function groupRegions(fused: FusedChunk[], maxGap = MAX_MERGE_GAP, strong?: (f: FusedChunk) => boolean, maxTokens = MAX_REGION_TOKENS): Region[] {
  const rankOf = new Map<FusedChunk, number>();
  for (let i = 0; i < fused.length; i++) rankOf.set(fused[i], i + 1);
  const bySet = new Map<string, FusedChunk[]>();
  for (const f of fused) {
    const key = `${f.chunk.doc_id}\u0000${f.chunk.chunkset_index}`;
    const list = bySet.get(key);
    if (list) list.push(f);
    else bySet.set(key, [f]);
  }
  const regions: Region[] = [];
  for (const list of bySet.values()) {
    list.sort((a, b) => a.chunk.chunk_index - b.chunk.chunk_index);
    let current: FusedChunk[] = [];
    const flush = () => {
      if (current.length) regions.push(makeRegion(current, rankOf));
      current = [];
    };
    let lastStrong = false;
    let tokens = 0;
    for (const f of list) {
      const last = current[current.length - 1];
      const isStrong = strong ? strong(f) : true;
      if (last && f.chunk.chunk_index === last.chunk.chunk_index) continue; // duplicate row
      if (last && (f.chunk.chunk_index - last.chunk.chunk_index > maxGap + 1 || isStrong !== lastStrong || tokens + f.chunk.token_count > maxTokens)) { flush(); tokens = 0; }
      lastStrong = isStrong;
      current.push(f);
      tokens += f.chunk.token_count;
    }
    flush();
  }
  return regions.sort((a, b) => a.fusedRank - b.fusedRank);
}

/** The larger of a running maximum and a member's value (null/undefined = the member has no value). */
function max(a: number | null, b: number | null | undefined): number | null {
  return b === null || b === undefined ? a : a === null || b > a ? b : a;
}

function makeRegion(members: FusedChunk[], rankOf: Map<FusedChunk, number>): Region {
  const first = members[0].chunk;
  // One pass over the members (a search groups ≈ 200 candidates; per-field filter/spread arrays were
  // most of this stage's time): the maximum of each signal over the members that have it, else null.
  let ann: number | null = null;
  let bm25: number | null = null;
  let anchor: number | null = null;
  let coverage: number | null = null;
  let docCoverage: number | null = null;
  let coverageInDoc: number | null = null;
  let titleCoverage: number | null = null;
  let pairCoverage: number | null = null;
  let pairCoverageInPool: number | null = null;
  let rrf = -Infinity;
  let fusedRank = Number.MAX_SAFE_INTEGER;
  for (let k = 0; k < members.length; k++) {
    const m = members[k];
    ann = max(ann, m.ann);
    bm25 = max(bm25, m.bm25);
    anchor = max(anchor, m.anchor);
    coverage = max(coverage, m.coverage);
    docCoverage = max(docCoverage, m.docCoverage);
    coverageInDoc = max(coverageInDoc, m.coverageInDoc);
    titleCoverage = max(titleCoverage, m.titleCoverage);
    pairCoverage = max(pairCoverage, m.pairCoverage);
    pairCoverageInPool = max(pairCoverageInPool, m.pairCoverageInPool);
    if (m.rrf > rrf) rrf = m.rrf;
    fusedRank = Math.min(fusedRank, rankOf.get(m) ?? Number.MAX_SAFE_INTEGER);
  }
  const chunks = new Array<StoredChunk>(members.length);
  for (let k = 0; k < members.length; k++) chunks[k] = members[k].chunk;
  const signals: HitSignals = { ann, bm25, rrf, reranker: null };
  return {
    docId: first.doc_id,
    chunksetIndex: first.chunkset_index,
    from: first.chunk_index,
    to: members[members.length - 1].chunk.chunk_index,
    members,
    signals,
    fusedRank,
    anchor,
    coverage,
    docCoverage,
    coverageInDoc,
    titleCoverage,
    pairCoverage,
    pairCoverageInPool,
    score: 0,
    chunks,
  };
}
