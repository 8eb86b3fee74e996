// Stage 7b of retrieval (a context should use its budget for evidence): when the admitted hits
// leave the context well below `target_tokens`, widen them within their document instead of stopping —
// past their chunkset into the neighbouring chunks (the rest of the section, the rest of a table split
// into parts, the next slide or page), nearest first, alternately after and before.
// Rule (docs/search.md "Widening"): hits are widened best first; a hit may grow by at most
// `expand_tightness × target_tokens` tokens (0 = never widen), never into a chunk another admitted hit
// owns, and never past `target_tokens` in total. Planned from the token counts stored on the retrieved
// chunks' rows (ChunkLayout.docWide) without a read; at most one layout read for hits those do not cover.
import { LAYOUT_WINDOW, type NamespaceIndex, type StoredChunk } from '../../storage/namespace-index.ts';
import { growAlternately, layoutStub } from './expand.ts';

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
  /** Its retrieved chunks, whose stored layout (ChunkLayout.docWide) may give the window without a read. */
  members?: StoredChunk[];
}

/**
 * The chunks of [lo, hi] of a hit's document (clipped at the document's end) as layout stubs built from the
 * stored document-wide layouts of its retrieved chunks (pure; no read): the hit's own chunk objects where it
 * has them, else stubs (textOmitted, page span 0 until hydrateChunks() reads them) whose `rowId` is guessed
 * from a member's (a document's rows are written in chunk order in one batch; getChunksAt checks the guess).
 * @returns the chunks, or null when the layouts do not cover the window (no member stores a document-wide
 *          layout, or the window reaches past what they store)
 */
export function windowFromLayout(hit: WidenHit, lo: number, hi: number): StoredChunk[] | null {
  const known = new Map<number, number>();
  let docEnd = Number.POSITIVE_INFINITY;
  for (const m of hit.members ?? []) {
    const l = m.layout;
    if (!l?.docWide || m.doc_id !== hit.docId) continue;
    for (let k = 0; k < l.near.length; k++) known.set(l.nearFrom + k, l.near[k]);
    const last = l.nearFrom + l.near.length - 1;
    if (last < m.chunk_index + LAYOUT_WINDOW) docEnd = Math.min(docEnd, last); // the window was cut by the document's end
  }
  if (known.size === 0) return null;
  const end = Math.min(hi, docEnd);
  for (let i = lo; i <= end; i++) if (!known.has(i)) return null;
  const own = new Map(hit.chunks.map((c) => [c.chunk_index, c]));
  const at = (hit.members ?? []).find((m) => m.rowId !== undefined);
  const out: StoredChunk[] = [];
  for (let i = lo; i <= end; i++) {
    const mine = own.get(i);
    if (mine) {
      out.push(mine);
      continue;
    }
    out.push(layoutStub(hit.docId, i, -1, known.get(i)!, at));
  }
  return out;
}

/**
 * Widen admitted hits in place, best first. The read fetches the layout only (ReadOptions.text false:
 * token counts and row addresses, no text): the ±WIDEN_WINDOW chunks around each hit are mostly not
 * taken, and reading their text cost ≈ 9 ms a filled search at 100k chunks (174 rows) against ≈ 2 ms
 * for the layout (docs/decisions/2026-11-25-widening-from-stored-layout.md). The caller reads the text of exactly the chunks shown
 * afterwards (hydrateChunks, by row address), for widened and other hits in one read.
 * @param hits      admitted hits best first (chunks replaced by the widened list of layout rows)
 * @param used      estimated tokens of the context as admitted
 * @param target    target_tokens (the total never exceeds it)
 * @param tightness expand_tightness 0..1 (per-hit allowance = tightness · target)
 * @returns the estimated tokens after widening
 * @throws whatever the index throws
 */
export async function widenHits(index: NamespaceIndex, namespace: string, hits: WidenHit[], used: number, target: number, tightness: number): Promise<{ tokens: number }> {
  if (tightness <= 0 || used >= target || hits.length === 0) return { tokens: used };
  const claimed = new Map<string, Set<number>>();
  for (const h of hits) {
    const own = claimed.get(h.docId) ?? new Set<number>();
    for (const c of h.chunks) own.add(c.chunk_index);
    claimed.set(h.docId, own);
  }
  const ranges = hits.map((h) => ({ from: Math.min(...h.chunks.map((c) => c.chunk_index)), to: Math.max(...h.chunks.map((c) => c.chunk_index)) }));
  const windows = ranges.map((r) => ({ lo: Math.max(0, r.from - WIDEN_WINDOW), hi: r.to + WIDEN_WINDOW }));
  // From the stored layouts where they cover the window; one layout read for the other hits.
  const stored = hits.map((h, i) => windowFromLayout(h, windows[i].lo, windows[i].hi));
  const unread = hits.flatMap((h, i) => (stored[i] ? [] : [{ docId: h.docId, from: windows[i].lo, to: windows[i].hi }]));
  const read = unread.length ? await index.getChunkRanges(namespace, unread, { text: false }) : [];
  const around = hits.map((h, i) => stored[i] ?? read.filter((c) => c.doc_id === h.docId && c.chunk_index >= windows[i].lo && c.chunk_index <= windows[i].hi));
  let total = used;
  hits.forEach((h, i) => {
    const rows = (from: number, to: number) => around[i].filter((c) => c.chunk_index >= from && c.chunk_index <= to).sort((a, b) => a.chunk_index - b.chunk_index);
    const allowance = Math.min(target - total, tightness * target);
    const own = claimed.get(h.docId)!;
    const plan = allowance > 0 ? planWidening(ranges[i], around[i], new Set([...own].filter((k) => k < ranges[i].from || k > ranges[i].to)), allowance) : { ...ranges[i], added: 0 };
    const chunks = rows(plan.from, plan.to);
    // The document changed meanwhile (a chunk is missing): keep the hit as it was.
    if (chunks.length !== plan.to - plan.from + 1) return;
    if (plan.added === 0) return;
    h.chunks = chunks;
    for (let k = plan.from; k <= plan.to; k++) own.add(k);
    total += plan.added;
  });
  return { tokens: total };
}
