// Stage 6 of retrieval: widen each hit with neighbouring chunks of its own chunkset (DESIGN.md §5: "hits
// are expanded within their chunkset"), as far as `expand_tightness` asks: 0 = the retrieved chunks only
// (plus any chunk bridged inside the region), 1 = the whole chunkset, in between a share of the rest of
// the chunkset's tokens, nearest neighbours first. A region never grows into chunks another region owns,
// so hits never overlap.
import type { NamespaceIndex, StoredChunk } from '../../storage/namespace-index.ts';
import type { Region } from '../types.ts';

/** Default `expand_tightness` when the request leaves it out. */
export const DEFAULT_EXPAND_TIGHTNESS = 0.3;

/** Chunks fetched on each side of a region per round while looking for its chunkset's ends. */
const WINDOW = 16;

/**
 * Choose the expanded range of a region (pure).
 * @param core      the region's retrieved range [from, to]
 * @param chunkset  every chunk of the region's chunkset, ordered by chunk_index (contiguous)
 * @param claimed   chunk indices owned by other regions of the same document (never taken)
 * @param tightness 0..1; allowance = tightness · (chunkset tokens − core tokens)
 * @returns the expanded [from, to]; neighbours are added alternately after then before, nearest first,
 *          while the added tokens stay within the allowance; a side stops at a claimed chunk or the
 *          chunkset's end. tightness 1 takes everything reachable.
 */
export function planExpansion(core: { from: number; to: number }, chunkset: StoredChunk[], claimed: Set<number>, tightness: number): { from: number; to: number } {
  if (tightness <= 0 || chunkset.length === 0) return core;
  const byIndex = new Map(chunkset.map((c) => [c.chunk_index, c]));
  let total = 0;
  let coreTokens = 0;
  for (const c of chunkset) {
    total += c.token_count;
    if (c.chunk_index >= core.from && c.chunk_index <= core.to) coreTokens += c.token_count;
  }
  const allowance = tightness >= 1 ? Number.POSITIVE_INFINITY : tightness * Math.max(0, total - coreTokens);
  const { from, to } = growAlternately(core, byIndex, claimed, allowance);
  return { from, to };
}

/**
 * Grow a chunk range by neighbours alternately after then before, nearest first, while the added tokens
 * stay within `allowance`; a side stops at a missing or claimed chunk (shared by expansion and widen.ts).
 * @returns the grown range and the tokens added (stored per-chunk token_count)
 */
export function growAlternately(range: { from: number; to: number }, byIndex: Map<number, StoredChunk>, claimed: Set<number>, allowance: number): { from: number; to: number; added: number } {
  let { from, to } = range;
  let added = 0;
  let openAfter = true;
  let openBefore = true;
  while (openAfter || openBefore) {
    for (const side of ['after', 'before'] as const) {
      if (side === 'after' ? !openAfter : !openBefore) continue;
      const next = side === 'after' ? to + 1 : from - 1;
      const c = byIndex.get(next);
      if (!c || claimed.has(next) || added + c.token_count > allowance) {
        if (side === 'after') openAfter = false;
        else openBefore = false;
        continue;
      }
      added += c.token_count;
      if (side === 'after') to = next;
      else from = next;
    }
  }
  return { from, to, added };
}

/** One chunkset to load: its document, its index, and a known range of its chunks. */
export interface ChunksetRequest {
  docId: string;
  chunksetIndex: number;
  from: number;
  to: number;
}

/**
 * Load the layout of every chunk of several chunksets around known ranges (ReadOptions.text false: no
 * content; see hydrateChunks) with one engine read per round (issue 15: one read instead of one per region): fetch a window around each range, and widen the windows whose edge
 * chunks still belong to their chunkset (doubling steps) in further rounds until no window needs it.
 * @returns per request (same order), its chunkset's chunks ordered by chunk_index
 * @throws whatever the index throws
 */
export async function loadChunksets(index: NamespaceIndex, namespace: string, requests: ChunksetRequest[]): Promise<StoredChunk[][]> {
  const out: StoredChunk[][] = requests.map(() => []);
  let open = requests.map((r, i) => ({ i, r, lo: Math.max(0, r.from - WINDOW), hi: r.to + WINDOW, step: WINDOW }));
  while (open.length > 0) {
    const rows = await index.getChunkRanges(namespace, open.map((w) => ({ docId: w.r.docId, from: w.lo, to: w.hi })), { text: false });
    const next: typeof open = [];
    for (const w of open) {
      const own = rows.filter((c) => c.doc_id === w.r.docId && c.chunk_index >= w.lo && c.chunk_index <= w.hi).sort((a, b) => a.chunk_index - b.chunk_index);
      const first = own[0];
      const last = own[own.length - 1];
      const growLo = w.lo > 0 && first !== undefined && first.chunk_index === w.lo && first.chunkset_index === w.r.chunksetIndex;
      const growHi = last !== undefined && last.chunk_index === w.hi && last.chunkset_index === w.r.chunksetIndex;
      if (!growLo && !growHi) {
        out[w.i] = own.filter((c) => c.chunkset_index === w.r.chunksetIndex);
        continue;
      }
      const step = w.step * 2;
      next.push({ ...w, step, lo: growLo ? Math.max(0, w.lo - step) : w.lo, hi: growHi ? w.hi + step : w.hi });
    }
    open = next;
  }
  return out;
}

/** Load every chunk of one chunkset around a known range (loadChunksets for one request). */
export async function loadChunkset(index: NamespaceIndex, namespace: string, docId: string, chunksetIndex: number, range: { from: number; to: number }): Promise<StoredChunk[]> {
  return (await loadChunksets(index, namespace, [{ docId, chunksetIndex, from: range.from, to: range.to }]))[0];
}

/**
 * Expand regions in place, best first (earlier regions claim contested chunks). Chunks read here carry
 * the layout only (empty content): hydrateChunks() reads the text of the chunks that are shown.
 * @param regions   regions to expand, best first
 * @param claimed   per document, chunk indices already owned (callers seed it with every region's core
 *                  so that no expansion swallows another hit); updated with the expansions made here
 * @param tightness 0..1
 * @throws whatever the index throws
 */
export async function expandRegions(index: NamespaceIndex, namespace: string, regions: Region[], claimed: Map<string, Set<number>>, tightness: number): Promise<void> {
  // With tightness 0 only a region's own range is read (to fill bridged gaps); otherwise its chunkset.
  const keyOf = (r: Region) => (tightness <= 0 ? `${r.docId}\u0000${r.from}\u0000${r.to}` : `${r.docId}\u0000${r.chunksetIndex}`);
  // One read for the ranges of tightness 0 and one (per widening round) for the chunksets.
  const ranges = new Map<string, Region>();
  const sets = new Map<string, Region>();
  for (const r of regions) {
    const key = keyOf(r);
    const hasHoles = r.to - r.from + 1 > r.chunks.length;
    if (tightness <= 0 && !hasHoles) continue;
    const into = tightness <= 0 ? ranges : sets;
    if (!into.has(key)) into.set(key, r);
  }
  const loaded = new Map<string, StoredChunk[]>();
  const [rangeRows, setRows] = await Promise.all([
    ranges.size ? index.getChunkRanges(namespace, [...ranges.values()].map((r) => ({ docId: r.docId, from: r.from, to: r.to })), { text: false }) : Promise.resolve([]),
    loadChunksets(index, namespace, [...sets.values()].map((r) => ({ docId: r.docId, chunksetIndex: r.chunksetIndex, from: r.from, to: r.to }))),
  ]);
  for (const [key, r] of ranges) {
    loaded.set(key, rangeRows.filter((c) => c.doc_id === r.docId && c.chunk_index >= r.from && c.chunk_index <= r.to).sort((a, b) => a.chunk_index - b.chunk_index));
  }
  [...sets.keys()].forEach((key, i) => loaded.set(key, setRows[i]));
  for (const r of regions) {
    const set = loaded.get(keyOf(r))?.filter((c) => c.chunkset_index === r.chunksetIndex);
    if (!set) continue;
    const own = claimed.get(r.docId) ?? new Set<number>();
    claimed.set(r.docId, own);
    const others = new Set([...own].filter((i) => i < r.from || i > r.to));
    const range = planExpansion(r, set, others, tightness);
    const chunks = set.filter((c) => c.chunk_index >= range.from && c.chunk_index <= range.to);
    if (chunks.length === 0) continue; // document vanished meanwhile; keep the retrieved core
    r.from = range.from;
    r.to = range.to;
    r.chunks = chunks;
    for (let i = range.from; i <= range.to; i++) own.add(i);
  }
}
