// The data-plane contract: one index per project namespace holding chunks, their vectors and their
// analysed text. Domain code (ingest, search, documents) depends only on this interface; LanceDB is the
// default implementation (lance-index.ts) and another engine can be added behind it (DESIGN.md §2).
import type { IndexBuild } from './index-build.ts';

/**
 * The id of a document's chunk: `${doc_id}:${chunk_index}`, unique within the namespace. Ingest writes it
 * this way, so reads that skip the `id` column (search and layout reads) derive it with the same function.
 */
export function chunkId(docId: string, chunkIndex: number): string {
  return `${docId}:${chunkIndex}`;
}

/** One chunk as stored in a namespace. `vector` length equals the index's recorded dimension. */
export interface ChunkRecord {
  /** chunkId(doc_id, chunk_index) — unique within the namespace. */
  id: string;
  doc_id: string;
  source_job_id: string;
  /** 0-based position of the chunk in its document. */
  chunk_index: number;
  /** 0-based chunkset (root-to-leaf heading path section) the chunk belongs to. */
  chunkset_index: number;
  /** 1-based page span of the chunk. */
  page_start: number;
  page_end: number;
  /** Heading path, outermost first, joined with " > ". */
  heading_path: string;
  /** Markdown content of the chunk (without the heading path). */
  content: string;
  /** Analysed tokens (analysis/analyzer.ts) joined by single spaces; the column the BM25 index reads. */
  tokens: string;
  /** Estimated LLM tokens of `content` (o200k_base). */
  token_count: number;
  vector: Float32Array;
  /**
   * Typed attribute values of the chunk's document (the same object on every chunk of a document),
   * keyed by attribute name. Absent names are stored as null. See AttrValue.
   */
  attributes?: Record<string, AttrValue>;
  /**
   * Where the chunk sits in its chunkset, stored at ingest so that expansion plans without a read
   * (ingest/chunk-rows.ts withSearchLayout). Absent on rows written before it existed.
   */
  layout?: ChunkLayout;
  /**
   * True when the chunk is part of a reference list (search/stages/section-prior.ts, computed at ingest so
   * that ranking needs no candidate text). Absent on rows written before it existed.
   */
  bibliography?: boolean;
  /**
   * Sorted distinct 32-bit hashes of `tokens` (analysis/term-hash.ts termHashSet), stored at ingest so that
   * ranking's coverage feature needs no term string. Absent on rows written before it existed.
   */
  term_hashes?: Uint32Array;
  /**
   * Sorted distinct 32-bit hashes of the chunk's adjacent content-term pairs (analysis/term-hash.ts
   * pairHashSet), stored at ingest for the phrase feature `pair_cov` (search/stages/coverage.ts). Absent on
   * rows written before it existed (their phrase evidence is unknown, not absent: score.ts then uses the
   * model without the feature).
   */
  pair_hashes?: Uint32Array;
}

/**
 * A chunk's chunkset as expansion needs it (search/stages/expand.ts): the chunkset's extent and total
 * tokens, and the token counts of the chunkset's chunks near this one. Chunksets are contiguous runs of
 * chunk_index (the chunker's sections).
 */
/**
 * Chunks on each side of a chunk whose token counts its row stores (ChunkLayout.near), written by ingest
 * (ingest/chunk-rows.ts) and relied on by readers: a document-wide window that ends less than this far
 * after its chunk ends at the document's last chunk (search/stages/widen.ts).
 */
export const LAYOUT_WINDOW = 32;

export interface ChunkLayout {
  /** First and last chunk_index of the chunk's chunkset (inclusive). */
  setFirst: number;
  setLast: number;
  /** Sum of token_count over the chunkset. */
  setTokens: number;
  /** chunk_index of near[0]. */
  nearFrom: number;
  /**
   * token_count of the chunks nearFrom, nearFrom + 1, … within a window of this chunk (LAYOUT_WINDOW a side):
   * the document's chunks when `docWide`, else only the chunkset's.
   */
  near: ArrayLike<number>;
  /**
   * True when `near` spans the document across chunkset boundaries (rows written since the flag exists;
   * widening plans from it without a read, search/stages/widen.ts); absent on older rows, whose `near` stops
   * at the chunkset's ends.
   */
  docWide?: boolean;
}

export type StoredChunk = Omit<ChunkRecord, 'vector' | 'tokens' | 'attributes' | 'term_hashes' | 'pair_hashes'> & {
  /**
   * True when the row was read without its text (ReadOptions.text false, or a layout stub made by
   * expansion): `content`, `heading_path` and `source_job_id` are then empty strings.
   */
  textOmitted?: boolean;
  /**
   * The row's engine address (LanceDB `_rowid`) in the table version it was read from, when the read
   * returned it (search reads without text); a hint for getChunksAt(), never trusted without checking.
   */
  rowId?: bigint;
};

/** A chunk to read by getChunksAt(): its document, index and, when known, a guess of its engine row address. */
export type ChunkRef = Pick<StoredChunk, 'doc_id' | 'chunk_index' | 'rowId'>;

/**
 * Engine-neutral storage kind of an attribute column (the attributes domain maps the spec's 12 types
 * onto these: datetime -> int as epoch milliseconds, encrypted_text -> string_list of token hashes).
 */
export type AttrStorage = 'string' | 'int' | 'float' | 'bool' | 'string_list' | 'int_list' | 'float_list' | 'bool_list';

/** One attribute value of a document; `value` null = the document has no value. Ints are safe integers. */
export interface AttrValue {
  storage: AttrStorage;
  value: string | number | boolean | string[] | number[] | boolean[] | null;
}

/** A literal in an attribute predicate (its JS type matches the column's storage element type). */
export type AttrLiteral = string | number | boolean;

/**
 * One predicate on an attribute column. Documents without a value never match (three-valued logic).
 *   eq/ne/lt/lte/gt/gte: scalar comparison with `value`;  in/nin: membership in `values` (non-empty)
 *   like/ilike: `value` is a pattern where `*` is any run and `?` one character, all else literal
 *   has: the list contains `value`;  has_any / has_all: the list contains one / every of `values`
 *   list_eq: the list equals `values` exactly (same elements, same order)
 *   min_lt / max_gt: some element < / > `value`
 */
export type AttrPredicate =
  | { kind: 'cmp'; attr: string; storage: AttrStorage; op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'; value: AttrLiteral }
  | { kind: 'in'; attr: string; storage: AttrStorage; negate: boolean; values: AttrLiteral[] }
  | { kind: 'like'; attr: string; storage: AttrStorage; caseInsensitive: boolean; pattern: string }
  | { kind: 'has'; attr: string; storage: AttrStorage; value: AttrLiteral }
  | { kind: 'has_any' | 'has_all' | 'list_eq'; attr: string; storage: AttrStorage; values: AttrLiteral[] }
  | { kind: 'min_lt' | 'max_gt'; attr: string; storage: AttrStorage; value: AttrLiteral };

/** Boolean combination of attribute predicates; `false` matches nothing (e.g. a name never used). */
export type AttrExpr = AttrPredicate | { kind: 'and' | 'or'; items: AttrExpr[] } | { kind: 'false' };

/** Prefilter evaluated inside the engine before ranking, never after (no recall loss). */
export interface ChunkFilter {
  /** Only these documents. An empty array matches nothing. */
  docIds?: string[];
  /** Never these documents. */
  excludeDocIds?: string[];
  /** Only chunks at these chunk_index values (with `docIds` naming one document: its named sections). */
  chunkIndices?: number[];
  /** Typed-attribute condition (built by src/attributes); the engine compiles it with proper escaping. */
  attributes?: AttrExpr;
}

export interface IndexHit {
  chunk: StoredChunk;
  /** vector: cosine similarity in [-1, 1]; bm25: the engine's BM25 score (≥ 0). */
  score: number;
  /**
   * The chunk's stored embedding, returned by vectorSearch and bm25Search (the lexical-anchor feature of
   * search/stages/anchor.ts compares hits with the best BM25 hit in embedding space). Absent from other reads.
   */
  vector?: Float32Array;
  /**
   * The chunk's analysed BM25 terms (space-separated), returned by vectorSearch and bm25Search: the
   * query-term coverage feature of search/stages/coverage.ts reads them. Absent from other reads.
   */
  tokens?: string;
  /**
   * The chunk's stored term hashes (ChunkRecord.term_hashes), returned by vectorSearch and bm25Search in
   * place of `tokens` for rows that store them: coverage tests query terms against them.
   */
  termHashes?: Uint32Array;
  /** The chunk's stored pair hashes (ChunkRecord.pair_hashes), returned with `termHashes` where stored. */
  pairHashes?: Uint32Array;
}

/** One document's rows from one job (NamespaceIndex.listDocJobs). */
export interface DocJobRows {
  doc_id: string;
  source_job_id: string;
  chunks: number;
}

/** Embedding model an index was built with; a mismatch is refused (DESIGN.md §3). */
export interface EmbeddingSignature {
  provider: string;
  model: string;
  dimension: number;
}

/** What a chunk read returns. */
export interface ReadOptions {
  /**
   * false = the layout only (doc_id, chunk_index, chunkset_index, page span, token_count): `id` is
   * derived, `content`, `heading_path` and `source_job_id` are empty strings. Reading the text only for
   * the chunks a response shows keeps a filled-context search cheap. Default true.
   * For vectorSearch and bm25Search, false = without `content`, `heading_path` and `source_job_id`
   * (marked textOmitted) and without the page span (`page_start` = `page_end` = 0: what ranking and
   * expansion need, not what a response shows; getChunksAt with `shown` reads it); rows written before `bibliography` was stored come with their text (ranking then
   * computes the flag from it). Search reads return `layout`, `bibliography` and `rowId` where stored,
   * with or without text.
   */
  text?: boolean;
  /**
   * Search reads (vectorSearch, bm25Search) with text: true = only what ranking and a reranker read
   * (content and heading path beside the layout), without `source_job_id` (empty), `id` (derived) and the
   * page span (0), as a read without text; absent or false = the full rows. Ignored by other reads.
   */
  lean?: boolean;
}

export interface NamespaceIndex {
  /**
   * Append chunks (all of one document). Creates the namespace table on first use and records the
   * embedding signature; throws AppError('embedder_mismatch') if it differs from the recorded one.
   */
  addChunks(namespace: string, rows: ChunkRecord[], signature: EmbeddingSignature): Promise<void>;
  /** Remove every chunk of a document; returns the number of rows (vectors) removed. */
  deleteDocument(namespace: string, docId: string): Promise<number>;
  /** Remove every chunk of any of `docIds` in one commit (the reconciler's orphans); returns the rows removed. */
  deleteDocuments(namespace: string, docIds: string[]): Promise<number>;
  /**
   * Replace every chunk of `docIds` by `rows` (the documents' new versions, ids `chunkId(doc_id, i)`) in
   * ONE commit: a read of the namespace sees each document either whole in its old version or whole in its
   * new one, never both and never neither (docs/decisions/2026-11-29-source-replacement.md). Creates the
   * namespace table on first use.
   * @returns old rows removed or rewritten
   * @throws AppError embedder_mismatch as addChunks
   */
  replaceDocuments(namespace: string, docIds: string[], rows: ChunkRecord[], signature: EmbeddingSignature): Promise<number>;
  /**
   * Remove every chunk written by a job (used when a job fails or is cancelled half-way); with `docId`
   * only those of that document (a job that replaced another document never removes that document's rows).
   */
  deleteByJob(namespace: string, jobId: string, docId?: string): Promise<number>;
  /** Remove every chunk written by any of `jobIds` in one commit (a group commit's earlier attempts). */
  deleteByJobs(namespace: string, jobIds: string[]): Promise<number>;
  /**
   * Run `fn` while this node may commit to the namespace (its writer lease), so that several
   * writes inside it form one uninterrupted group; waits while another node holds the lease.
   */
  withWriter<T>(namespace: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Top-`limit` chunks by cosine similarity to `vector`, after `filter`; none when the namespace was built by
   * an embedder of another dimension (it needs a reindex: BM25 answers alone meanwhile).
   */
  vectorSearch(namespace: string, vector: Float32Array, limit: number, filter?: ChunkFilter, opts?: ReadOptions): Promise<IndexHit[]>;
  /**
   * Make every row written so far rank in BM25 as it will once indexed: rows outside the lexical index are
   * folded in once there are too many of them to leave to a scan (the implementation's bound); below it
   * the engine scores them with the statistics of the whole table. Concurrent callers share one refresh
   * that started after their call. A namespace without a table is a no-op.
   */
  refreshLexical(namespace: string): Promise<void>;
  /**
   * Top-`limit` chunks by BM25 over the analysed-token column, after `filter`. `boosts` multiplies the
   * contribution of the named tokens (absent = 1), e.g. query words outside the question.
   */
  bm25Search(namespace: string, queryTokens: string[], limit: number, filter?: ChunkFilter, boosts?: ReadonlyMap<string, number>, opts?: ReadOptions): Promise<IndexHit[]>;
  /** All chunks of one document whose chunk_index is in [from, to] (inclusive), ordered by chunk_index. */
  getChunks(namespace: string, docId: string, from: number, to: number): Promise<StoredChunk[]>;
  /**
   * The chunks of several [from, to] ranges (inclusive, any documents) in ONE engine read, unordered
   * (one read instead of one per hit). Empty ranges are skipped.
   */
  getChunkRanges(namespace: string, ranges: Array<{ docId: string; from: number; to: number }>, opts?: ReadOptions): Promise<StoredChunk[]>;
  /**
   * The full rows (text included) of exactly these chunks in one engine read where possible:
   * chunks with a `rowId` are taken by row address and kept only when the row read is the chunk asked for
   * (same doc_id and chunk_index); the others, and guesses that missed, are read by range. Unordered;
   * chunks whose rows are gone are left out. With `opts.shown`, rows read by address carry only what a
   * response shows (lance-arrow.ts SHOWN_COLUMNS: text, pages, heading path, token count):
   * `source_job_id` empty, `id` derived as `${doc_id}:${chunk_index}`.
   */
  getChunksAt(namespace: string, chunks: ChunkRef[], opts?: { shown?: boolean }): Promise<StoredChunk[]>;
  /** Every chunk's heading path of one document (`' > '`-joined, outermost first), chunk_index order; [] when none. */
  getHeadings(namespace: string, docId: string): Promise<Array<{ chunk_index: number; heading_path: string }>>;
  /** Distinct doc_ids present in the namespace (for the reconciler). */
  listDocIds(namespace: string): Promise<string[]>;
  /** Number of chunks in the namespace (0 when it does not exist). */
  countChunks(namespace: string): Promise<number>;
  /** Drop the whole namespace (project deletion). Idempotent. */
  dropNamespace(namespace: string): Promise<void>;
  /** Background maintenance: fold unindexed rows into the FTS/ANN indexes, compact, clean old versions. */
  optimize(namespace: string): Promise<void>;
  /**
   * What built the namespace's serving table (embedder, analyser, table format: storage/index-build.ts) and
   * its generation; null when the namespace has no table.
   */
  describeBuild(namespace: string): Promise<(IndexBuild & { generation: number }) | null>;
  /**
   * Every document of the namespace's serving table with the job its rows carry and their number, in one
   * scan of two columns (what an online reindex compares a generation with). Rows of one document written
   * by two jobs give two entries.
   */
  listDocJobs(namespace: string): Promise<DocJobRows[]>;
  /**
   * Run `fn` while no commit to the namespace can happen: this process's commits wait for it and, with
   * coordination, other nodes wait for the writer lease it holds. The namespace's cached table is reopened
   * afterwards (fn may have switched its generation).
   */
  exclusive<T>(namespace: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Drop the table of one generation of a namespace that is not serving it (a retired or unfinished
   * build, storage/index-build.ts generationTable); a missing table is fine.
   */
  dropGeneration(namespace: string, generation: number): Promise<void>;
  /** Readiness (/readyz): the engine's storage answers a listing. @throws the engine's error otherwise */
  probe(): Promise<void>;
  close(): Promise<void>;
}
