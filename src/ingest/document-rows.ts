// From a document's bytes to its index rows: parse and chunk (in a bounded child process when a parse
// runner is given), detect the language, embed the chunks, analyse them for BM25, and build the rows with
// their layout, term and pair hashes and attributes. The ingest pipeline runs it on a new upload, the
// online reindex (reindex/rebuild.ts) on a stored original, so both make the same rows of the same bytes.
import { AppError } from '../internal/errors.ts';
import { timeSlicer, yieldToEventLoop } from '../internal/event-loop.ts';
import type { ChunkRecord } from '../storage/namespace-index.ts';
import type { Embedder } from '../models/embedder.ts';
import type { JobProgress } from '../jobs/job-view.ts';
import { detectLanguage, type DetectedLanguage } from '../analysis/analyzer.ts';
import { DefinitionCollector, type KeyedDefinition } from '../analysis/abbreviations.ts';
import { pairHashSet, termHashSet } from '../analysis/term-hash.ts';
import { phraseSkipTerms } from '../analysis/stopwords.ts';
import { chunkRows, documentLabel, embeddingText, lexicalTokens } from './chunk-rows.ts';
import { parseDocument } from './parse/index.ts';
import { ParseError, type ParsedDocument } from './parse/types.ts';
import { chunkDocument, type ChunkedDocument } from './chunking/chunker.ts';
import type { ParseRunner } from './isolation/parse-runner.ts';
import { toChunkAttributes } from '../attributes/resolve.ts';
import type { StageClock } from './stage-times.ts';

/** Longest document title kept (characters): the documents row has always stored at most this many. */
export const TITLE_MAX = 500;
/** Chunk texts per embedDocuments call. */
const EMBED_BATCH = 64;
/** Characters of chunk text language detection looks at (eld samples within them). */
const LANGUAGE_SAMPLE_CHARS = 20_000;

/** The first LANGUAGE_SAMPLE_CHARS characters of the chunk contents, without joining the whole document. */
function languageSample(chunked: ChunkedDocument): string {
  const parts: string[] = [];
  let n = 0;
  for (const c of chunked.chunks) {
    if (n >= LANGUAGE_SAMPLE_CHARS) break;
    parts.push(c.content.slice(0, LANGUAGE_SAMPLE_CHARS - n));
    n += parts.at(-1)!.length + 1;
  }
  return parts.join('\n').slice(0, LANGUAGE_SAMPLE_CHARS);
}

/** A document's bytes as parsed and chunked. */
export interface ParsedBytes {
  parsed: ParsedDocument;
  chunked: ChunkedDocument;
}

/**
 * Parse and chunk `data` (in the parse child when `parser` is given: the cost grows with the document).
 * With `clock`, the time is charged to its stages parse, tables, figures, chunk and transfer.
 * @throws ParseError when the file cannot be parsed (its job code and error code say why)
 */
export async function parseBytes(input: { data: Buffer; filename: string; mediaType?: string }, parser: ParseRunner | undefined,
  opts: { signal: AbortSignal; onPages?: (parsed: number, total: number) => void; clock?: StageClock }): Promise<ParsedBytes> {
  const clock = opts.clock;
  if (parser) {
    const { doc, chunked, stats } = await parser.parseAndChunk(input, { signal: opts.signal, onPages: opts.onPages });
    if (clock) {
      // The child's own times; what they leave of the wall time is the transfer to and from it.
      const t = stats.timings ?? { parse: 0, tables: 0, figures: 0, chunk: 0 };
      const wall = clock.take();
      clock.add('parse', t.parse);
      clock.add('tables', t.tables);
      clock.add('figures', t.figures);
      clock.add('chunk', t.chunk);
      clock.add('transfer', wall - t.parse - t.tables - t.figures - t.chunk);
    }
    return { parsed: doc, chunked };
  }
  const parsed = await parseDocument(input);
  clock?.lap('parse');
  const chunked = chunkDocument(parsed);
  clock?.lap('chunk');
  return { parsed, chunked };
}

/** The index rows of a parsed document and what its documents row and abbreviations take from them. */
export interface DocumentRows {
  rows: ChunkRecord[];
  title: string;
  lang: DetectedLanguage;
  abbreviations: readonly KeyedDefinition[];
}

/**
 * Embed and analyse a parsed document's chunks into its index rows (ids `doc_id:i`, written by `jobId`).
 * The language is detected from the chunks, the title is the parser's (else the file name), capped at
 * TITLE_MAX. Analysis runs on this thread in bounded slices. With `clock`, the time is charged to its
 * stages analyse and embed.
 * @param attributes the document's resolved attribute values (attributes/resolve.ts), put on every row
 * @throws AppError internal_error 'aborted' when `signal` fires between embedding batches
 */
export async function documentRows(embedder: Embedder, p: ParsedBytes, doc: { docId: string; jobId: string; filename: string; attributes?: unknown },
  opts: { signal: AbortSignal; progress?: (p: JobProgress) => void; clock?: StageClock }): Promise<DocumentRows> {
  const { parsed, chunked } = p;
  const lang = detectLanguage(languageSample(chunked));
  const texts = chunked.chunks.map(embeddingText);
  opts.clock?.lap('analyse');
  const vectors: Float32Array[] = [];
  const pageCounts = parsed.pages ? { pages_total: parsed.pages, pages_parsed: parsed.pages } : {};
  const embedding = (n: number) => opts.progress?.({ stage: 'embedding', ...pageCounts, chunks_total: texts.length, chunks_embedded: n });
  embedding(0);
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    if (opts.signal.aborted) throw new AppError('internal_error', 'aborted');
    await yieldToEventLoop();
    vectors.push(...(await embedder.embedDocuments(texts.slice(i, i + EMBED_BATCH))));
    embedding(vectors.length);
  }
  opts.clock?.lap('embed');
  opts.progress?.({ stage: 'indexing', ...pageCounts, chunks_total: texts.length, chunks_embedded: texts.length });
  // One title for the documents row, the chunks' label and the ranking's title lookup (title-terms.ts reads
  // the row): capped once, so a parser's runaway "title" neither bloats every chunk's terms nor differs
  // between what is indexed and what is scored.
  const title = ((parsed.title && parsed.title.trim()) || doc.filename).slice(0, TITLE_MAX);
  const label = documentLabel(title, doc.filename);
  const tokens: string[] = [];
  const termHashes: Uint32Array[] = [];
  const pairHashes: Uint32Array[] = [];
  const skip = phraseSkipTerms(lang.code);
  const tick = timeSlicer();
  const definitions = new DefinitionCollector();
  for (const c of chunked.chunks) {
    // Abbreviations the document defines, "long form (SF)" (analysis/abbreviations.ts): linear in the chunk.
    definitions.add(c);
    const t = lexicalTokens(c, label, lang.code);
    tokens.push(t);
    termHashes.push(termHashSet(t));
    pairHashes.push(pairHashSet(t, skip));
    await tick();
  }
  // Typed attribute values (resolved and hashed at accept time) go onto every chunk row.
  const rows = chunkRows({
    docId: doc.docId, jobId: doc.jobId, chunks: chunked.chunks, vectors, label, lang: lang.code, tokens, termHashes, pairHashes,
    attributes: toChunkAttributes(doc.attributes),
  });
  const abbreviations = definitions.keyed();
  opts.clock?.lap('analyse');
  return { rows, title, lang, abbreviations };
}

export { ParseError };
