// Stage 7b of retrieval (issue 11 "a context that uses its budget for evidence"): when the admitted hits
// leave the context well below `target_tokens`, widen them within their document instead of stopping —
// past their chunkset into the neighbouring chunks (the rest of the section, the rest of a table split
// into parts, the next slide or page), nearest first, alternately after and before.
// Rule (docs/search.md "Widening"): hits are widened best first; a hit may grow by at most
// `expand_tightness × target_tokens` tokens (0 = never widen), never into a chunk another admitted hit
// owns, and never past `target_tokens` in total. One engine read for all widened hits.
import type { NamespaceIndex, StoredChunk } from '../../storage/namespace-index.ts';
import { growAlternately } from './expand.ts';

/** Chunks read on each side of a hit when widening (≈ 300-token chunks: beyond any allowance ≤ 4 500). */
export const WIDEN_WINDOW = 15;

/**
 * Choose the widened range of one hit (pure).
 * @param range     the hit's current contiguous range [from, to]
 * @param around    the document's chunks near the range, any order (only contiguous indices are used)
 * @param claimed   chunk indices owned by other hits of the same document (never taken)
 * @param allowance most tokens that may be added (per-chunk stored token_count)
 * @returns the widened range and the tokens added
 */
export function planWidening(range: { from: number; to: number }, around: StoredChunk[], claimed: Set<number>, allowance: number): { from: number; to: number; added: number } {
  return growAlternately(range, new Map(around.map((c) => [c.chunk_index, c])), claimed, allowance);
}

/** One admitted hit as the widening sees it: its document and its chunks (ordered, contiguous). */
export interface WidenHit {
  docId: string;
  chunks: StoredChunk[];
}

/**
 * Widen admitted hits in place, best first. Added chunks carry the layout only (empty content):
 * hydrateChunks() reads their text.
 * @param hits      admitted hits best first (chunks replaced by the widened list)
 * @param used      estimated tokens of the context as admitted
 * @param target    target_tokens (the total never exceeds it)
 * @param tightness expand_tightness 0..1 (per-hit allowance = tightness · target)
 * @returns estimated tokens after widening
 * @throws whatever the index throws
 */
export async function widenHits(index: NamespaceIndex, namespace: string, hits: WidenHit[], used: number, target: number, tightness: number): Promise<number> {
  if (tightness <= 0 || used >= target || hits.length === 0) return used;
  const claimed = new Map<string, Set<number>>();
  for (const h of hits) {
    const own = claimed.get(h.docId) ?? new Set<number>();
    for (const c of h.chunks) own.add(c.chunk_index);
    claimed.set(h.docId, own);
  }
  const ranges = hits.map((h) => ({ from: Math.min(...h.chunks.map((c) => c.chunk_index)), to: Math.max(...h.chunks.map((c) => c.chunk_index)) }));
  const read = await index.getChunkRanges(namespace, hits.map((h, i) => ({ docId: h.docId, from: Math.max(0, ranges[i].from - WIDEN_WINDOW), to: ranges[i].to + WIDEN_WINDOW })), { text: false });
  const around = hits.map((h, i) => read.filter((c) => c.doc_id === h.docId && c.chunk_index >= ranges[i].from - WIDEN_WINDOW && c.chunk_index <= ranges[i].to + WIDEN_WINDOW));
  let total = used;
  hits.forEach((h, i) => {
    const allowance = Math.min(target - total, tightness * target);
    if (allowance <= 0) return;
    const own = claimed.get(h.docId)!;
    const others = new Set([...own].filter((k) => k < ranges[i].from || k > ranges[i].to));
    const plan = planWidening(ranges[i], around[i], others, allowance);
    if (plan.added === 0) return;
    const chunks = around[i].filter((c) => c.chunk_index >= plan.from && c.chunk_index <= plan.to).sort((a, b) => a.chunk_index - b.chunk_index);
    if (chunks.length !== plan.to - plan.from + 1) return; // the document changed meanwhile: keep the hit as it was
    h.chunks = chunks;
    for (let k = plan.from; k <= plan.to; k++) own.add(k);
    total += plan.added;
  });
  return total;
}
