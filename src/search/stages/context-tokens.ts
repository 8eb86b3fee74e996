// Token counts the budget and the response need, without re-tokenising what was counted before (issue 15:
// re-tokenising the rendered context and every document header was 18 % of a filled search's CPU).
// Document headers: their estimate depends only on the document's id and title, so it is counted once per
// document and kept in a bounded cache. Chunk bodies use the counts stored at ingest (hit-content.ts).
import { countTokens } from '../../analysis/token-count.ts';

/** Documents whose header estimate is kept (about 100 bytes each); the cache is cleared when full. */
export const HEADER_CACHE_SIZE = 50_000;

/** The header estimate of one document: its `<doc>` line with a one-page span and its `</doc>` line. */
export function headerTokens(doc: { doc_id: string; title: string }): number {
  return countTokens(`<doc id="${doc.doc_id}" title="${doc.title}" pages="1-1">\n</doc>\n`);
}

/** headerTokens() per (doc_id, title), computed once; a renamed document is a new key. */
export class HeaderTokenCache {
  private readonly entries = new Map<string, number>();

  /** @param size most entries kept before the cache is cleared (default HEADER_CACHE_SIZE) */
  constructor(private readonly size = HEADER_CACHE_SIZE) {}

  /** Estimated tokens of the document's header (exactly headerTokens(doc)). */
  get(doc: { doc_id: string; title: string }): number {
    const key = `${doc.doc_id}\u0000${doc.title}`;
    let n = this.entries.get(key);
    if (n === undefined) {
      n = headerTokens(doc);
      if (this.entries.size >= this.size) this.entries.clear();
      this.entries.set(key, n);
    }
    return n;
  }
}
