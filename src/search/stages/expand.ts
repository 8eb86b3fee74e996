// Stage 6 of retrieval: widen each hit with neighbouring chunks of its own chunkset (DESIGN.md §5: "hits
// are expanded within their chunkset"), as far as `expand_tightness` asks: 0 = the retrieved chunks only
// (plus any chunk bridged inside the region), 1 = the whole chunkset, in between a share of the rest of
// the chunkset's tokens, nearest neighbours first. A region never grows into chunks another region owns,
// so hits never overlap.
import { chunkId, type NamespaceIndex, type StoredChunk } from '../../storage/namespace-index.ts';
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
export function growAlternately(range: { from: number; to: number }, byIndex: ReadonlyMap<number, Pick<StoredChunk, 'token_count'>>, claimed: Set<number>, allowance: number): { from: number; to: number; added: number } {
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
 * content; see hydrateChunks) with one engine read per round (one read instead of one per region): fetch a window around each range, and widen the windows whose edge
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

/** A region's planned expansion: its new range and that range's chunks (ordered). */
interface Plan {
  from: number;
  to: number;
  chunks: StoredChunk[];
}

/**
 * Plan a region's expansion from its members' stored layouts (ChunkLayout, no engine read): the range
 * planExpansion() chooses from the chunkset's rows, with the same chunks' token counts.
 * @param others chunk indices of the document owned by other regions
 * @returns the plan, its chunks layout stubs (textOmitted; page span 0 until hydrateChunks() reads the
 *          rows; `rowId` guessed from a member's); null when the layouts cannot decide it: a member stores no layout, or the range or its
 *          growth reaches a chunk of the chunkset outside every member's stored window
 */
export function planFromLayout(r: Region, others: Set<number>, tightness: number): Plan | null {
  const known = new Map<number, { token_count: number }>();
  const first = r.members[0]?.chunk.layout;
  if (!first) return null;
  for (const m of r.members) {
    const l = m.chunk.layout;
    if (!l || l.setFirst !== first.setFirst || l.setLast !== first.setLast) return null;
    for (let k = 0; k < l.near.length; k++) {
      const i = l.nearFrom + k;
      if (i >= l.setFirst && i <= l.setLast) known.set(i, { token_count: l.near[k] }); // expansion stays in the chunkset
    }
  }
  let coreTokens = 0;
  for (let i = r.from; i <= r.to; i++) {
    const c = known.get(i);
    if (!c) return null;
    coreTokens += c.token_count;
  }
  let { from, to } = r;
  if (tightness > 0) {
    const allowance = tightness >= 1 ? Number.POSITIVE_INFINITY : tightness * Math.max(0, first.setTokens - coreTokens);
    ({ from, to } = growAlternately(r, known, others, allowance));
    const undecided = (i: number) => i >= first.setFirst && i <= first.setLast && !known.has(i) && !others.has(i);
    if (undecided(to + 1) || undecided(from - 1)) return null;
  }
  // A document's rows are written in chunk order in one batch: a neighbour's row address is guessed from a
  // member's (a hint; getChunksAt checks it).
  const at = r.members.find((m) => m.chunk.rowId !== undefined)?.chunk;
  const chunks: StoredChunk[] = [];
  for (let i = from; i <= to; i++) chunks.push(layoutStub(r.docId, i, r.chunksetIndex, known.get(i)!.token_count, at));
  return { from, to, chunks };
}

/**
 * A chunk known only from stored layouts (textOmitted, page span 0 until hydrateChunks() reads it), its
 * `rowId` guessed from `at`'s (a document's rows are written in chunk order in one batch; getChunksAt checks it).
 */
export function layoutStub(docId: string, i: number, chunksetIndex: number, tokenCount: number, at?: Pick<StoredChunk, 'rowId' | 'chunk_index'>): StoredChunk {
  const guess = at?.rowId !== undefined ? at.rowId + BigInt(i - at.chunk_index) : undefined;
  return {
    id: chunkId(docId, i), doc_id: docId, source_job_id: '', chunk_index: i, chunkset_index: chunksetIndex,
    page_start: 0, page_end: 0, heading_path: '', content: '', token_count: tokenCount, textOmitted: true,
    ...(guess !== undefined && guess >= 0n ? { rowId: guess } : {}),
  };
}

/** Plan a region's expansion from rows read (its chunkset, or its range at tightness 0); undefined when they are gone. */
function planFromRows(r: Region, rows: StoredChunk[], others: Set<number>, tightness: number): Plan | undefined {
  const set = rows.filter((c) => c.chunkset_index === r.chunksetIndex);
  const range = planExpansion(r, set, others, tightness);
  const chunks = set.filter((c) => c.chunk_index >= range.from && c.chunk_index <= range.to);
  return chunks.length ? { ...range, chunks } : undefined; // none: the document vanished meanwhile
}

/**
 * Expand regions in place, best first (earlier regions claim contested chunks). Regions whose retrieved
 * chunks store their layout (ChunkLayout) are planned without a read; the others (rows
 * written before the layout was stored, growth past the stored windows) read their chunkset, in one read
 * per round, after which every region is planned again in order (a region's expansion depends on the
 * ones before it in its document). Chunks chosen here carry no text: hydrateChunks() reads the text of
 * the chunks that are shown.
 * @param regions   regions to expand, best first
 * @param claimed   per document, chunk indices already owned (callers seed it with every region's core
 *                  so that no expansion swallows another hit); updated with the expansions made here
 * @param tightness 0..1
 * @throws whatever the index throws
 */
export async function expandRegions(index: NamespaceIndex, namespace: string, regions: Region[], claimed: Map<string, Set<number>>, tightness: number): Promise<void> {
  // With tightness 0 only a region's own range is needed (to fill bridged gaps); otherwise its chunkset.
  const keyOf = (r: Region) => (tightness <= 0 ? `${r.docId}\u0000${r.from}\u0000${r.to}` : `${r.docId}\u0000${r.chunksetIndex}`);
  const active = regions.filter((r) => tightness > 0 || r.to - r.from + 1 > r.chunks.length);
  const loaded = new Map<string, StoredChunk[]>();
  for (;;) {
    const trial = new Map([...claimed].map(([doc, own]) => [doc, new Set(own)]));
    const plans: Array<{ r: Region; plan: Plan }> = [];
    const unread = new Map<string, Region>();
    for (const r of active) {
      const own = trial.get(r.docId) ?? new Set<number>();
      trial.set(r.docId, own);
      const others = new Set([...own].filter((i) => i < r.from || i > r.to));
      const rows = loaded.get(keyOf(r));
      const plan = rows ? planFromRows(r, rows, others, tightness) : planFromLayout(r, others, tightness);
      if (plan === null) {
        if (!unread.has(keyOf(r))) unread.set(keyOf(r), r);
        continue;
      }
      if (!plan) continue;
      plans.push({ r, plan });
      for (let i = plan.from; i <= plan.to; i++) own.add(i);
    }
    if (unread.size === 0) {
      for (const { r, plan } of plans) Object.assign(r, plan);
      for (const [doc, own] of trial) claimed.set(doc, own);
      return;
    }
    await readLayouts(index, namespace, [...unread], tightness, loaded);
  }
}

/** One read round for regions the stored layout cannot plan: their ranges (tightness 0) or chunksets, into `loaded` by key. */
async function readLayouts(index: NamespaceIndex, namespace: string, regions: Array<[string, Region]>, tightness: number, loaded: Map<string, StoredChunk[]>): Promise<void> {
  const ranges = tightness <= 0 ? regions : [];
  const sets = tightness <= 0 ? [] : regions;
  const [rangeRows, setRows] = await Promise.all([
    ranges.length ? index.getChunkRanges(namespace, ranges.map(([, r]) => ({ docId: r.docId, from: r.from, to: r.to })), { text: false }) : Promise.resolve([]),
    loadChunksets(index, namespace, sets.map(([, r]) => ({ docId: r.docId, chunksetIndex: r.chunksetIndex, from: r.from, to: r.to }))),
  ]);
  for (const [key, r] of ranges) {
    loaded.set(key, rangeRows.filter((c) => c.doc_id === r.docId && c.chunk_index >= r.from && c.chunk_index <= r.to).sort((a, b) => a.chunk_index - b.chunk_index));
  }
  sets.forEach(([key], i) => loaded.set(key, setRows[i]));
}
