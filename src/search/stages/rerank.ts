// Stage 5b of retrieval, advanced tier only (DESIGN.md §2, §5): the best hits of the standard ranking go
// to the configured Reranker, its raw value is exposed as `scores.reranker`, and `score` becomes the
// advanced tier's calibrated relevance probability:
//   output 'probability' (builtin, fitted on the SciFact and XQuAD training splits with the standard score among its features):
//       score = the reranker's value
//   output 'logit' (ONNX cross-encoder) or 'unit' (HTTP service, 0..1 of unknown calibration):
//       score = σ(c0 + c1·z + c2·logit(standard score)), z = the logit, or logit(value) for 'unit'
// c defaults to (0, 0.5, 0.5) — the two opinions averaged in log-odds — and can be refitted for a given
// model on SciFact train with bench/fit-reranker.ts (DOCSEARCH_RERANKER_CALIBRATION). Hits beyond the
// rerank depth keep their standard score, capped at the lowest reranked score so that the list stays
// ordered by score.
import type { RerankCalibration, RerankCandidate, Reranker } from '../../models/reranker.ts';
import type { QueryStats, Region } from '../types.ts';
import { regionInput, relevanceFeatures } from './score.ts';

/** Hits reranked per search unless the reranker or the configuration says otherwise. */
export const DEFAULT_RERANK_DEPTH = 50;

export const DEFAULT_RERANK_CALIBRATION: RerankCalibration = { intercept: 0, reranker: 0.5, standard: 0.5 };

const logit = (p: number) => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** The advanced score of one hit from the reranker's raw value and the hit's standard score. */
export function advancedScore(output: Reranker['info']['output'], raw: number, standard: number, c: RerankCalibration = DEFAULT_RERANK_CALIBRATION): number {
  if (output === 'probability') return Math.min(1, Math.max(0, raw));
  const z = output === 'unit' ? logit(raw) : raw;
  return 1 / (1 + Math.exp(-(c.intercept + c.reranker * z + c.standard * logit(standard))));
}

/** The passage a reranker sees for a hit: its retrieved chunks (before expansion) and their heading path. */
export function rerankCandidate(r: Region, stats: QueryStats, fallbackTitle: string): RerankCandidate {
  const chunks = [...r.chunks].sort((a, b) => a.chunk_index - b.chunk_index);
  const features = relevanceFeatures(regionInput(r), r.stats ?? stats);
  return {
    title: chunks[0]?.heading_path || fallbackTitle,
    text: chunks.map((c) => c.content.trim()).join('\n\n'),
    first: { ann: r.signals.ann, bm25: r.signals.bm25, rrf: r.signals.rrf, score: r.score, features: { ...features } },
  };
}

export interface RerankOptions {
  /** Query language the lexical terms were stemmed in. */
  lang: string | null;
  depth?: number;
  calibration?: RerankCalibration;
  /** Title used when a hit's chunks carry no heading path (the document title). */
  titleOf?: (docId: string) => string;
  /** The query's counted content terms (rerankQueryTerms), handed to the reranker. */
  terms?: string[];
}

/**
 * The query terms the builtin reranker matches passages with: the first (query-language) form of each word
 * group the standard tier counted (QueryStats.countedWords), so instruction sentences, stopwords and prompt
 * words weigh in neither tier. Taking every word of the text instead, the
 * wrapper of an instruction-wrapped question ("Assume you are an analyst preparing a briefing …") added rare
 * words no passage holds to its coverage denominator, and wrapped questions scored lower than plain ones.
 * @param groups the analysed query's word groups (analyze-query.ts), first form in the stemming language
 * @param stats  the statistics the standard tier scored with
 * @returns distinct terms, in query order
 */
export function rerankQueryTerms(groups: string[][], stats: QueryStats): string[] {
  return [...new Set(groups.filter((g, w) => g.length > 0 && stats.countedWords?.[w] !== false).map((g) => g[0]))];
}

/** How many of the best regions rerankRegions() reranks for a configured `depth` (at least 1). */
export function rerankDepth(depth: number | undefined): number {
  return Math.max(1, depth ?? DEFAULT_RERANK_DEPTH);
}

/**
 * Rerank the best `depth` regions (their chunks must carry their text: hit-content.ts fillText).
 * @param regions scored by the standard tier, best first (score.ts scoreRegions)
 * @returns the same regions re-ordered best first; reranked ones carry `signals.reranker` and the advanced score
 * @throws whatever the reranker throws (the caller falls back to the standard tier)
 */
export async function rerankRegions(reranker: Reranker, query: string, regions: Region[], stats: QueryStats, opts: RerankOptions): Promise<Region[]> {
  const depth = rerankDepth(opts.depth);
  const head = regions.slice(0, depth);
  const tail = regions.slice(depth);
  if (head.length === 0) return regions;
  const candidates = head.map((r) => rerankCandidate(r, stats, opts.titleOf?.(r.docId) ?? ''));
  const raw = await reranker.rerank({ text: query, lang: opts.lang, ...(opts.terms ? { terms: opts.terms } : {}) }, candidates);
  if (raw.length !== head.length || raw.some((x) => !Number.isFinite(x))) {
    throw new Error(`reranker ${reranker.info.provider}/${reranker.info.model} returned ${raw.length} values for ${head.length} candidates`);
  }
  head.forEach((r, i) => {
    r.signals.reranker = round4(raw[i]);
    r.score = round4(advancedScore(reranker.info.output, raw[i], r.score, opts.calibration));
  });
  head.sort((a, b) => b.score - a.score || (b.signals.reranker ?? 0) - (a.signals.reranker ?? 0) || a.fusedRank - b.fusedRank);
  const floor = head[head.length - 1].score;
  for (const r of tail) r.score = Math.min(r.score, floor);
  return [...head, ...tail];
}
