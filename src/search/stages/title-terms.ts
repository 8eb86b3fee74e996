// Analysed document titles for the title-coverage feature (`title_cov`, stages/score.ts): the share of the
// query that a hit's document title holds. A chunk's BM25 terms already include its document label
// (ingest/chunk-rows.ts), so coverage cannot tell "the title names the claim's subject" from "the text
// mentions it"; the title is where a document says what it is about (BM25F's title field, Robertson,
// Zaragoza & Taylor 2004; the builtin reranker's `title_cov`, docs/models.md). Titles come from the
// control-plane rows the visibility check reads anyway (doc-filters.ts visibleDocs), so no engine read.
// The label is what the index holds with every chunk: the title, plus the file name's words when the title
// lacks them ("10-K" uploaded as 3M_2018_10K.pdf → "10-K (3M 2018 10K)").
// Cost on the event loop: one analysis per distinct (language, title, file name) seen, at most TITLE_MAX_CHARS
// characters, kept in an LRU; a search then costs a map lookup per candidate document.
import { LRUCache } from 'lru-cache';
import { analyze } from '../../analysis/analyzer.ts';
import { documentLabel } from '../../ingest/chunk-rows.ts';

/** Characters of a title analysed (longer titles are cut): bounds the per-title analysis cost. */
export const TITLE_MAX_CHARS = 512;
/** Titles kept analysed per process (≈ 100 bytes each): the candidate documents of many searches. */
export const TITLE_CACHE_SIZE = 50_000;

/** Analysed label terms per document, memoised per (language, title, file name). */
export class TitleTermsCache {
  private readonly entries: LRUCache<string, string>;

  /** @param size most (language, title) pairs kept (default TITLE_CACHE_SIZE) */
  constructor(size = TITLE_CACHE_SIZE) {
    this.entries = new LRUCache({ max: size });
  }

  /**
   * The analysed terms of each document's label, space-separated (the format group-match.ts termMatcher
   * scans): the title analysed with the query's stemming language and unstemmed, as the query's word
   * groups hold both forms (analyze-query.ts).
   * @param docs doc_id → visible document: its label (ingest/chunk-rows.ts documentLabel: the title, plus
   *             the file name's words when the title lacks them, as indexed with every chunk) is analysed
   * @param lang the query's stemming language (AnalysedQuery.stemLang), null = none
   */
  of(docs: ReadonlyMap<string, { title: string; filename?: string }>, lang: string | null): Map<string, string> {
    const out = new Map<string, string>();
    for (const [id, d] of docs) {
      const key = `${lang ?? ''}\u0000${d.title ?? ''}\u0000${d.filename ?? ''}`;
      let terms = this.entries.get(key);
      if (terms === undefined) {
        const label = documentLabel(d.title ?? '', d.filename ?? '').slice(0, TITLE_MAX_CHARS);
        terms = [...new Set([...analyze(label, lang), ...analyze(label, null)])].join(' ');
        this.entries.set(key, terms);
      }
      out.set(id, terms);
    }
    return out;
  }
}
