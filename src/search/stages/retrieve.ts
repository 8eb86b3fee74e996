// Stage 2 of retrieval (DESIGN.md §2): the two first-stage retrievers, run in parallel against the
// namespace index with the same prefilter — dense (cosine over the query embedding) and lexical (BM25
// over the analysed-token column). Either list may be empty: a query with no analysable terms skips
// BM25, and a zero query vector (every word out of vocabulary) skips the vector search.
import type { ChunkFilter, IndexHit, NamespaceIndex } from '../../storage/namespace-index.ts';
import { termBoosts, type AnalysedQuery } from './analyze-query.ts';

/** Candidates taken from each retriever before fusion. */
export const RETRIEVE_LIMIT = 100;

export interface Retrieved {
  /** Vector hits, best first; null when the vector search did not run. */
  vector: IndexHit[] | null;
  /** BM25 hits, best first; null when the lexical search did not run. */
  bm25: IndexHit[] | null;
  limit: number;
}

/** True when every component of `v` is 0 (cosine against it is undefined). */
export function isZeroVector(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

/** The lexical half of a query: its analysed BM25 terms and per-term boosts (absent = 1). */
export interface LexicalQuery {
  terms: string[];
  boosts?: ReadonlyMap<string, number>;
}

/** The lexical query of an analysed query: its BM25 terms and the boosts of words weighing other than 1. */
export function lexicalQueryOf(a: AnalysedQuery): LexicalQuery {
  return { terms: a.terms, boosts: termBoosts(a) };
}

/**
 * Run vector and BM25 retrieval concurrently. The query embedding is started first and its ANN query sent
 * as soon as the vector is in; the query analysis that BM25 needs (language detection, stemming, segments:
 * ≈ 0.7 ms of main-thread time) runs while the ANN query is in the engine, and BM25 is sent right after it.
 * ANN is the slower of the two at 100k chunks, so the analysis no longer precedes it. An ONNX or
 * HTTP embedder computes the vector elsewhere: BM25 is then sent after the analysis alone, as before, and
 * overlaps the embedding. By default the candidates are read without their text: ranking needs
 * their layout, vectors, term hashes (or terms) and stored bibliography flag, and the response reads the
 * text of what it shows; tables written before the flag was stored give it anyway.
 * @param index      the data plane
 * @param namespace  the project's namespace
 * @param q.embed    computes the query embedding (L2-normalised); called once, first
 * @param q.lexical  the analysed query's terms and boosts; called once, after the ANN query is under way
 * @param q.text     true = with the candidates' text (the advanced tier's reranker reads it: one read
 *                   fewer than fetching it afterwards, measured in docs/performance.md)
 * @param filter     prefilter applied inside the engine (doc ids to keep / exclude)
 * @param limit      candidates per retriever (default RETRIEVE_LIMIT)
 * @throws whatever the index, the embedder or q.lexical throws (the HTTP layer maps it); a failure of one
 *         retriever while the other runs is thrown once both have settled, never left unhandled
 */
export async function retrieve(
  index: NamespaceIndex,
  namespace: string,
  q: { embed: () => Promise<Float32Array>; lexical: () => Promise<LexicalQuery>; text?: boolean },
  filter: ChunkFilter | undefined,
  limit = RETRIEVE_LIMIT,
): Promise<Retrieved> {
  // Lean: no id, job id or page span either way; the response reads them for what it shows.
  const read = { text: q.text ?? false, lean: true };
  // Settled form: an embedding or ANN failure while BM25 runs must not be an unhandled rejection.
  const dense = q.embed()
    .then((vector) => (isZeroVector(vector) ? null : index.vectorSearch(namespace, vector, limit, filter, read)))
    .then((hits) => ({ hits }), (err: unknown) => ({ err }));
  // One macrotask turn lets the ANN query reach the engine before the analysis takes the thread.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const lexical = q.lexical()
    .then(({ terms, boosts }) => (terms.length === 0 ? null : index.bm25Search(namespace, terms, limit, filter, boosts, read)))
    .then((hits) => ({ hits }), (err: unknown) => ({ err }));
  const [vector, bm25] = await Promise.all([dense, lexical]);
  if ('err' in bm25) throw bm25.err;
  if ('err' in vector) throw vector.err;
  return { vector: vector.hits, bm25: bm25.hits, limit };
}
