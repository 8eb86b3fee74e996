// Stage 3b of retrieval: the lexical-anchor similarity of every fused chunk — the cosine, in embedding
// space, between the chunk and the best BM25 chunk of the query (the "anchor"). It is pseudo-relevance
// feedback with one feedback passage (Rocchio 1971, applied to dense vectors as in Li et al., "Pseudo
// Relevance Feedback with Deep Language Models and Dense Retrievers: Successes and Pitfalls", TOIS 2023)
// used as a rescoring feature instead of a second query: hits that read like the strongest lexical match
// gain, by the cluster hypothesis (relevant passages resemble each other). It needs no extra engine call:
// both retrievers return the stored vectors of their hits.
//
// Why it exists (measured, bench/fusion-study.ts): with the builtin GloVe embedder, adding the query's
// own cosine to BM25 barely moves the ranking on SciFact train (5-fold CV nDCG@10 0.7044 -> 0.7050), and
// the earlier five-feature model scored 0.7034; adding this feature to it gives 0.7081. See
// docs/search.md "Relevance score".
import { cosine } from '../../internal/cosine.ts';
import type { IndexHit } from '../../storage/namespace-index.ts';
import type { FusedChunk } from '../types.ts';
import { isBibliographyChunk } from './section-prior.ts';


/**
 * Set `anchor` on each fused chunk: its cosine to the stored vector of the first BM25 hit that is not
 * part of a reference list (section-prior.ts; the first BM25 hit when all are). The anchor scores 1
 * against itself. Chunks without a vector, and every chunk when there is no BM25 hit or the
 * anchor has no usable vector, get null (the score stage reads null as 0).
 * @param fused fused chunks (fuse.ts), not modified
 * @param bm25  the BM25 list best first, as fused (only visible documents), or null when BM25 did not run
 * @returns new FusedChunk objects in the same order
 */
export function withAnchorSimilarity(fused: FusedChunk[], bm25: IndexHit[] | null): FusedChunk[] {
  const anchor = (bm25?.find((h) => h.vector && !isBibliographyChunk(h.chunk)) ?? bm25?.[0])?.vector;
  return fused.map((f) => ({ ...f, anchor: anchor && f.vector ? cosine(f.vector, anchor) : null }));
}
