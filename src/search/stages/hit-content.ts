// Helpers that turn an admitted region into what the response shows: the chunks of the admitted variant
// (expanded or core), its page list, its token estimate, and a token-exact cut for the rare lone hit that
// is larger than max_tokens.
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { StoredChunk } from '../../storage/namespace-index.ts';
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
  return decode(ids.slice(0, Math.max(0, maxTokens)));
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
