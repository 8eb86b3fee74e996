// Stage 2 of retrieval (DESIGN.md §2): the two first-stage retrievers, run in parallel against the
// namespace index with the same prefilter — dense (cosine over the query embedding) and lexical (BM25
// over the analysed-token column). Either list may be empty: a query with no analysable terms skips
// BM25, and a zero query vector (every word out of vocabulary) skips the vector search.
import type { ChunkFilter, IndexHit, NamespaceIndex } from '../../storage/namespace-index.ts';

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

/**
 * Run vector and BM25 retrieval concurrently. BM25 is sent to the engine first and the query embedding
 * computed while it runs (the builtin embedder works on this thread, an ONNX or HTTP embedder elsewhere):
 * the embedding's time overlaps the engine's instead of preceding it. By default the candidates are read
 * without their text (issue 15): ranking needs their layout, vectors, term hashes (or terms) and stored
 * bibliography flag, and the response reads the text of what it shows; tables written before the flag was
 * stored give it anyway.
 * @param index      the data plane
 * @param namespace  the project's namespace
 * @param q.embed    computes the query embedding (L2-normalised); called once, after BM25 is under way
 * @param q.terms    analysed query terms
 * @param q.boosts   per-term BM25 boosts (absent = 1)
 * @param q.text     true = with the candidates' text (the advanced tier's reranker reads it: one read
 *                   fewer than fetching it afterwards, measured in docs/performance.md)
 * @param filter     prefilter applied inside the engine (doc ids to keep / exclude)
 * @param limit      candidates per retriever (default RETRIEVE_LIMIT)
 * @throws whatever the index or the embedder throws (the HTTP layer maps it)
 */
export async function retrieve(
  index: NamespaceIndex,
  namespace: string,
  q: { embed: () => Promise<Float32Array>; terms: string[]; boosts?: ReadonlyMap<string, number>; text?: boolean },
  filter: ChunkFilter | undefined,
  limit = RETRIEVE_LIMIT,
): Promise<Retrieved> {
  const read = { text: q.text ?? false };
  // Settled form: a BM25 failure while the embedding is computed must not be an unhandled rejection.
  const lexical = (q.terms.length === 0 ? Promise.resolve(null) : index.bm25Search(namespace, q.terms, limit, filter, q.boosts, read))
    .then((hits) => ({ hits }), (err: unknown) => ({ err }));
  // One macrotask turn lets the BM25 call reach the engine before a synchronous embedder takes the thread.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const vector = await q.embed();
  const dense = isZeroVector(vector) ? Promise.resolve(null) : index.vectorSearch(namespace, vector, limit, filter, read);
  const [vectorHits, bm25] = await Promise.all([dense, lexical]);
  if ('err' in bm25) throw bm25.err;
  return { vector: vectorHits, bm25: bm25.hits, limit };
}
