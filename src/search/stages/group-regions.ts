// Stage 4 of retrieval: turn fused chunks into hits. A hit is one region of one document (DESIGN.md §5):
// retrieved chunks of the same chunkset whose positions are adjacent or nearly so are merged into one
// contiguous range, so a passage split across two chunks is returned once, not twice.
import type { FusedChunk, HitSignals, Region } from '../types.ts';

/**
 * Largest number of missing chunks between two retrieved chunks that still merge into one region.
 * 1 = chunks 4 and 6 merge (chunk 5 is filled in by expansion); 4 and 7 stay separate.
 */
export const MAX_MERGE_GAP = 1;

/**
 * Group fused chunks into regions.
 * @param fused chunks best first (fuse.ts order)
 * @param maxGap largest number of unretrieved chunks bridged inside a region
 * @returns regions ordered by their best member's fused rank. Each region's signals are the maxima over
 *          its members (ann, bm25: null when no member has that signal; rrf: the best member's value;
 *          likewise `anchor`);
 *          `chunks` holds the members' chunks in document order (gaps are filled by expand.ts); score 0.
 */
export function groupRegions(fused: FusedChunk[], maxGap = MAX_MERGE_GAP): Region[] {
  const rankOf = new Map<FusedChunk, number>();
  fused.forEach((f, i) => rankOf.set(f, i + 1));
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
    for (const f of list) {
      const last = current[current.length - 1];
      if (last && f.chunk.chunk_index - last.chunk.chunk_index > maxGap + 1) flush();
      if (last && f.chunk.chunk_index === last.chunk.chunk_index) continue; // duplicate row
      current.push(f);
    }
    flush();
  }
  return regions.sort((a, b) => a.fusedRank - b.fusedRank);
}

function makeRegion(members: FusedChunk[], rankOf: Map<FusedChunk, number>): Region {
  const first = members[0].chunk;
  const maxOf = (xs: Array<number | null>): number | null => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? Math.max(...v) : null;
  };
  const signals: HitSignals = {
    ann: maxOf(members.map((m) => m.ann)),
    bm25: maxOf(members.map((m) => m.bm25)),
    rrf: Math.max(...members.map((m) => m.rrf)),
    reranker: null,
  };
  return {
    docId: first.doc_id,
    chunksetIndex: first.chunkset_index,
    from: first.chunk_index,
    to: members[members.length - 1].chunk.chunk_index,
    members,
    signals,
    fusedRank: Math.min(...members.map((m) => rankOf.get(m) ?? Number.MAX_SAFE_INTEGER)),
    anchor: maxOf(members.map((m) => m.anchor)),
    coverage: maxOf(members.map((m) => m.coverage)),
    docCoverage: maxOf(members.map((m) => m.docCoverage ?? null)),
    coverageInDoc: maxOf(members.map((m) => m.coverageInDoc ?? null)),
    score: 0,
    chunks: members.map((m) => m.chunk),
  };
}
