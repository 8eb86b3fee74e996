// What a chunk looks like to the two retrievers: the text its vector is embedded from and the analysed
// BM25 token column, built in one place for the ingest pipeline and the benchmarks that load corpora
// directly (bench/lib/corpus.ts), so an evaluation always measures the index the service writes.
//
// Field weighting: a chunk of a long document often names neither the
// company nor the statement it belongs to ("Purchases of property, plant and equipment … 1,577" on a
// cash-flow page of 3M's 10-K). Its document title and heading path are therefore indexed with it.
// With one lexical column, BM25F (Robertson, Zaragoza & Taylor, "Simple BM25 extension to multiple
// weighted fields", CIKM 2004) is obtained by repeating a field's terms w times before the length
// normalisation: title and heading terms count once each (w = 1), so they tip ties between otherwise
// similar chunks without outweighing the chunk's own words.
import { analyze } from '../analysis/analyzer.ts';
import { pairHashSet, termHashSet } from '../analysis/term-hash.ts';
import { phraseSkipTerms } from '../analysis/stopwords.ts';
import type { ChunkDraft } from './chunking/chunker.ts';
import { chunkId, LAYOUT_WINDOW, type ChunkRecord } from '../storage/namespace-index.ts';
import { isBibliographyChunk } from '../search/stages/section-prior.ts';

/**
 * BM25F field weight of the document label (title and file name) relative to the chunk's own text: a
 * prior, not fitted (the training sets' titles are their first heading and are indexed once as such).
 * Title weights of 2–5 are the usual range in BM25F (Robertson, Zaragoza & Taylor 2004; Zaragoza et al.,
 * "Microsoft Cambridge at TREC-13", 2004, used 3 for titles).
 */
export const LABEL_WEIGHT = 3;

/**
 * The document label indexed with every chunk: the title, plus the filename's words when the title does
 * not already contain them (a PDF titled "10-K" is found as "3M" through "3M_2018_10K.pdf").
 * @param title    the document's title (parser metadata or first heading; may equal the filename)
 * @param filename the uploaded file name, or '' when unknown
 */
export function documentLabel(title: string, filename: string): string {
  const t = title.trim();
  const stem = filename.replace(/\.[A-Za-z0-9]{1,8}$/, '').replace(/[_\-.]+/g, ' ').trim();
  if (!stem || t.toLowerCase().includes(stem.toLowerCase())) return t;
  return t ? `${t} (${stem})` : stem;
}

/**
 * Text the embedder sees for a chunk: heading path, then content (never to change: existing namespaces
 * must keep comparable vectors).
 */
export function embeddingText(c: Pick<ChunkDraft, 'heading_path' | 'content'>): string {
  return (c.heading_path.length ? c.heading_path.join(' > ') + '\n' : '') + c.content;
}

/**
 * BM25 token column of a chunk: its document label (unless it is the outermost heading), heading path
 * and content, analysed with the document's language (analysis/analyzer.ts), space-separated.
 * @param label document label from documentLabel()
 * @param lang  ISO 639-1 stemming language of the document, or null
 */
export function lexicalTokens(c: Pick<ChunkDraft, 'heading_path' | 'content'>, label: string, lang: string | null): string {
  // A label that is already the outermost heading (Markdown "# Title" documents) is not counted twice.
  const own = label && c.heading_path[0]?.trim().toLowerCase() !== label.trim().toLowerCase() ? labelTerms(label, lang) : [];
  const repeated: string[] = [];
  for (let i = 0; i < LABEL_WEIGHT; i++) repeated.push(...own);
  return [...repeated, ...analyze(embeddingText(c), lang)].join(' ');
}

/** The last label analysed: every chunk of a document has the same one (analyze() is pure). Read-only. */
let lastLabel: { label: string; lang: string | null; terms: readonly string[] } | undefined;

/** analyze(label, lang), computed once per run of chunks with the same label and language. */
function labelTerms(label: string, lang: string | null): readonly string[] {
  if (lastLabel?.label !== label || lastLabel.lang !== lang) lastLabel = { label, lang, terms: analyze(label, lang) };
  return lastLabel.terms;
}

export interface ChunkRowsInput {
  docId: string;
  jobId: string;
  chunks: ChunkDraft[];
  /** One vector per chunk, in order (embedded from embeddingText()). */
  vectors: Float32Array[];
  label: string;
  lang: string | null;
  /** lexicalTokens() of each chunk when the caller computed them already (in slices, off a hot loop). */
  tokens?: string[];
  /** termHashSet() of each chunk's tokens when the caller computed them already (same reason). */
  termHashes?: Uint32Array[];
  /** pairHashSet() of each chunk's tokens (skipping phraseSkipTerms(lang)) when the caller computed them. */
  pairHashes?: Uint32Array[];
  attributes?: ChunkRecord['attributes'];
}

/** The index rows of one document's chunks (ids `<docId>:<chunk_index>`), with withSearchLayout(). */
export function chunkRows(input: ChunkRowsInput): ChunkRecord[] {
  return withSearchLayout(input.chunks.map((c, i) => {
    const tokens = input.tokens?.[i] ?? lexicalTokens(c, input.label, input.lang);
    return {
      id: chunkId(input.docId, c.chunk_index),
      doc_id: input.docId,
      source_job_id: input.jobId,
      chunk_index: c.chunk_index,
      chunkset_index: c.chunkset_index,
      page_start: c.page_start,
      page_end: c.page_end,
      heading_path: c.heading_path.join(' > '),
      content: c.content,
      tokens,
      ...(input.termHashes?.[i] ? { term_hashes: input.termHashes[i] } : {}),
      ...(input.pairHashes?.[i] ? { pair_hashes: input.pairHashes[i] } : {}),
      token_count: c.token_count,
      vector: input.vectors[i],
      ...(input.attributes ? { attributes: input.attributes } : {}),
    };
  }), input.lang);
}

/**
 * LAYOUT_WINDOW (storage/namespace-index.ts): chunks on each side whose token counts a row stores, across
 * chunksets. Expansion (search/stages/expand.ts) plans from the stored layout when a region grows by at most
 * this many chunks a side within its chunkset; otherwise it reads the chunkset. 32 covers tightness 0.3 in
 * chunksets of up to ≈ 200 chunks and a whole chunkset of up to 33 chunks; widening (widen.ts, WIDEN_WINDOW
 * 15 a side) plans from it without a read when a hit spans at most 17 chunks around a retrieved one; 65
 * Int32 per row.
 */
export { LAYOUT_WINDOW };

/**
 * Set what search reads instead of text and layout on rows holding every chunk of their
 * documents: `bibliography` (section-prior.ts, from heading_path and content), `term_hashes` (the
 * coverage feature's sorted term hashes, analysis/term-hash.ts), `pair_hashes` where absent (the phrase
 * features' adjacent content-term pairs, skipping phraseSkipTerms(lang)) and `layout` (chunkset
 * extent, total tokens, the document's token counts within LAYOUT_WINDOW of the chunk). A document whose chunk indices are
 * not 0..n-1 or whose chunkset is not one contiguous run gets no layout (expansion then reads).
 * @param lang the language the rows' tokens were analysed in (ISO 639-1, or null), for their pair hashes
 * @returns the same row objects, modified
 */
export function withSearchLayout(rows: ChunkRecord[], lang: string | null = null): ChunkRecord[] {
  const byDoc = new Map<string, ChunkRecord[]>();
  const skip = phraseSkipTerms(lang);
  for (const r of rows) {
    r.bibliography = isBibliographyChunk({ heading_path: r.heading_path, content: r.content });
    r.term_hashes ??= termHashSet(r.tokens);
    r.pair_hashes ??= pairHashSet(r.tokens, skip);
    const list = byDoc.get(r.doc_id);
    if (list) list.push(r);
    else byDoc.set(r.doc_id, [r]);
  }
  for (const doc of byDoc.values()) {
    doc.sort((a, b) => a.chunk_index - b.chunk_index);
    if (doc.some((r, i) => r.chunk_index !== i)) continue;
    const runs: Array<{ first: number; last: number; tokens: number }> = [];
    const runOf: number[] = [];
    const seen = new Set<number>();
    let contiguous = true;
    doc.forEach((r, i) => {
      const run = runs[runs.length - 1];
      if (run && doc[i - 1].chunkset_index === r.chunkset_index) {
        run.last = i;
        run.tokens += r.token_count;
      } else {
        if (seen.has(r.chunkset_index)) contiguous = false;
        seen.add(r.chunkset_index);
        runs.push({ first: i, last: i, tokens: r.token_count });
      }
      runOf.push(runs.length - 1);
    });
    if (!contiguous) continue;
    doc.forEach((r, i) => {
      const run = runs[runOf[i]];
      const nearFrom = Math.max(0, i - LAYOUT_WINDOW);
      const nearTo = Math.min(doc.length - 1, i + LAYOUT_WINDOW);
      const near = doc.slice(nearFrom, nearTo + 1).map((c) => c.token_count);
      r.layout = { setFirst: run.first, setLast: run.last, setTokens: run.tokens, nearFrom, near, docWide: true };
    });
  }
  return rows;
}
