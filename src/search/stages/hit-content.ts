// Helpers that turn an admitted region into what the response shows: the chunks of the admitted variant
// (expanded or core), its page list, its token estimate, and a cut for the rare lone hit that is larger than
// max_tokens, measured on the rendered context so that `tokens_estimated` never exceeds max_tokens.
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { NamespaceIndex, StoredChunk } from '../../storage/namespace-index.ts';
import type { Region } from '../types.ts';

/** Approximate tokens a region adds besides its content: its `[pN] ` marker and a `[...]` separator. */
export const REGION_OVERHEAD_TOKENS = 6;

/** The region's core range: from its first to its last retrieved chunk. */
export function coreRange(r: Region): { from: number; to: number } {
  const idx = r.members.map((m) => m.chunk.chunk_index);
  return { from: Math.min(...idx), to: Math.max(...idx) };
}

/** Chunks of the admitted variant of a region, ordered by chunk_index. */
export function variantChunks(r: Region, variant: 'expanded' | 'core'): StoredChunk[] {
  if (variant === 'expanded') return r.chunks;
  const { from, to } = coreRange(r);
  const inCore = r.chunks.filter((c) => c.chunk_index >= from && c.chunk_index <= to);
  return inCore.length ? inCore : r.members.map((m) => m.chunk).sort((a, b) => a.chunk_index - b.chunk_index);
}

/** Estimated rendered tokens of a list of chunks (stored per-chunk counts plus marker overhead). */
export function chunkTokens(chunks: StoredChunk[]): number {
  return chunks.reduce((s, c) => s + c.token_count, 0) + REGION_OVERHEAD_TOKENS;
}

/** Sorted distinct 1-based page numbers spanned by the chunks (each chunk contributes page_start..page_end). */
export function pagesOf(chunks: StoredChunk[]): number[] {
  const pages = new Set<number>();
  for (const c of chunks) for (let p = c.page_start; p <= Math.max(c.page_start, c.page_end); p++) pages.add(p);
  return [...pages].sort((a, b) => a - b);
}

/** Cut `text` to at most `maxTokens` o200k_base tokens (whole text when it already fits). */
export function truncateToTokens(text: string, maxTokens: number): string {
  const opts = { allowedSpecial: 'all' as const, disallowedSpecial: new Set<string>() };
  const ids = encode(text, opts);
  if (ids.length <= maxTokens) return text;
  // A cut inside a multi-byte character decodes to U+FFFD (gpt-tokenizer may even put it before the
  // last whole character); drop replacement characters the text did not have.
  const cut = decode(ids.slice(0, Math.max(0, maxTokens)));
  return text.includes('\uFFFD') ? cut : cut.replace(/\uFFFD/g, '');
}

/**
 * Cut a chunk list to about `maxTokens` tokens: whole chunks while they fit, then the next one cut.
 * @returns new chunk objects (the input is not modified)
 */
export function truncateChunks(chunks: StoredChunk[], maxTokens: number): StoredChunk[] {
  const out: StoredChunk[] = [];
  let left = maxTokens - REGION_OVERHEAD_TOKENS;
  for (const c of chunks) {
    if (left <= 0) break;
    if (c.token_count <= left) {
      out.push(c);
      left -= c.token_count;
      continue;
    }
    out.push({ ...c, content: truncateToTokens(c.content, left), token_count: left });
    break;
  }
  return out;
}

/**
 * Cut a lone hit's chunks so that the context rendered from them is at most `maxTokens` tokens.
 * truncateChunks() works on estimates (the doc header is estimated with a one-page span, `[pN]` markers
 * with REGION_OVERHEAD_TOKENS, the `<context>` envelope not at all, and tokens merge differently at
 * joins), so the cut is measured with `measure` and tightened by the excess until it fits (a
 * 100-token ceiling gave 101 to 103).
 * @param estimate first allowance for truncateChunks (the budget's `truncateTo`)
 * @param measure tokens of the rendered context for a candidate chunk list
 * @returns new chunk objects; possibly empty when not even the header fits
 */
export function fitChunks(chunks: StoredChunk[], estimate: number, maxTokens: number, measure: (chunks: StoredChunk[]) => number): StoredChunk[] {
  let allowance = Math.min(estimate, maxTokens);
  for (;;) {
    const cut = truncateChunks(chunks, allowance);
    const over = cut.length ? measure(cut) - maxTokens : 0;
    if (over <= 0) return cut;
    allowance -= over;
  }
}

/**
 * Give the chunks of the hits a response shows their text: expansion and widening read the layout only
 * (ReadOptions.text false), so the text of exactly the shown chunks is read here, in one engine read
 * (by row address where the chunks carry one, NamespaceIndex.getChunksAt with `shown`: the text,
 * pages, heading path and token count, not the job id, which no response shows). Chunks are replaced
 * in place by the rows read, order kept; a chunk whose row vanished since (its document was deleted during
 * the search) is left out.
 * @throws whatever the index throws
 */
export async function hydrateChunks(index: NamespaceIndex, namespace: string, hits: Array<{ docId: string; chunks: StoredChunk[] }>): Promise<void> {
  const wanted = hits.filter((h) => h.chunks.length > 0);
  if (wanted.length === 0) return;
  const rowOf = await rowsOf(index, namespace, wanted.flatMap((h) => h.chunks), { shown: true });
  for (const h of wanted) h.chunks = h.chunks.map(rowOf).filter((c): c is StoredChunk => c !== undefined);
}

/**
 * Read the rows of `chunks` (NamespaceIndex.getChunksAt; `shown`: only the columns a response shows);
 * returns a lookup of a chunk's row (undefined when gone).
 */
async function rowsOf(index: NamespaceIndex, namespace: string, chunks: StoredChunk[], opts: { shown?: boolean } = {}): Promise<(c: StoredChunk) => StoredChunk | undefined> {
  const byKey = new Map((await index.getChunksAt(namespace, chunks, opts)).map((c) => [`${c.doc_id}\u0000${c.chunk_index}`, c]));
  return (c) => byKey.get(`${c.doc_id}\u0000${c.chunk_index}`);
}

/**
 * Give chunks read without their text (textOmitted: retrieval reads none) their text in place,
 * in one engine read; used for the hits the advanced tier's reranker reads. A chunk whose row vanished
 * since (its document was deleted during the search) keeps empty text.
 * @throws whatever the index throws
 */
export async function fillText(index: NamespaceIndex, namespace: string, chunks: StoredChunk[]): Promise<void> {
  const bare = chunks.filter((c) => c.textOmitted);
  if (bare.length === 0) return;
  const rowOf = await rowsOf(index, namespace, bare);
  for (const c of bare) {
    const row = rowOf(c);
    if (!row) continue;
    c.content = row.content;
    c.heading_path = row.heading_path;
    c.source_job_id = row.source_job_id;
    delete c.textOmitted;
  }
}
