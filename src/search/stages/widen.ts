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
 * Widen admitted hits in place, best first. The read fetches full rows (text included), so every hit it
 * covered leaves with the text of its chunks and needs no hydrateChunks() read (issue 15: one engine
 * read fewer on the path of contexts with few hits).
 * @param hits      admitted hits best first (chunks replaced by the widened list, or by the same chunks as
 *                  full rows)
 * @param used      estimated tokens of the context as admitted
 * @param target    target_tokens (the total never exceeds it)
 * @param tightness expand_tightness 0..1 (per-hit allowance = tightness · target)
 * @returns the estimated tokens after widening, and the hits whose chunks now carry their text
 * @throws whatever the index throws
 */
export async function widenHits<H extends WidenHit>(index: NamespaceIndex, namespace: string, hits: H[], used: number, target: number, tightness: number): Promise<{ tokens: number; hydrated: Set<H> }> {
  const hydrated = new Set<H>();
  if (tightness <= 0 || used >= target || hits.length === 0) return { tokens: used, hydrated };
  const claimed = new Map<string, Set<number>>();
  for (const h of hits) {
    const own = claimed.get(h.docId) ?? new Set<number>();
    for (const c of h.chunks) own.add(c.chunk_index);
    claimed.set(h.docId, own);
  }
  const ranges = hits.map((h) => ({ from: Math.min(...h.chunks.map((c) => c.chunk_index)), to: Math.max(...h.chunks.map((c) => c.chunk_index)) }));
  const read = await index.getChunkRanges(namespace, hits.map((h, i) => ({ docId: h.docId, from: Math.max(0, ranges[i].from - WIDEN_WINDOW), to: ranges[i].to + WIDEN_WINDOW })));
  const around = hits.map((h, i) => read.filter((c) => c.doc_id === h.docId && c.chunk_index >= ranges[i].from - WIDEN_WINDOW && c.chunk_index <= ranges[i].to + WIDEN_WINDOW));
  let total = used;
  hits.forEach((h, i) => {
    const rows = (from: number, to: number) => around[i].filter((c) => c.chunk_index >= from && c.chunk_index <= to).sort((a, b) => a.chunk_index - b.chunk_index);
    const allowance = Math.min(target - total, tightness * target);
    const own = claimed.get(h.docId)!;
    const plan = allowance > 0 ? planWidening(ranges[i], around[i], new Set([...own].filter((k) => k < ranges[i].from || k > ranges[i].to)), allowance) : { ...ranges[i], added: 0 };
    const chunks = rows(plan.from, plan.to);
    // The document changed meanwhile (a chunk is missing): keep the hit as it was, without text.
    if (chunks.length !== plan.to - plan.from + 1) return;
    if (plan.added === 0 && chunks.length !== h.chunks.length) return;
    h.chunks = chunks;
    hydrated.add(h);
    for (let k = plan.from; k <= plan.to; k++) own.add(k);
    total += plan.added;
  });
  return { tokens: total, hydrated };
}
