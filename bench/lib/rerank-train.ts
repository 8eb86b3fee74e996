// Training rows and the per-kind report for the builtin reranker (bench/fit-reranker.ts): the same
// TRAINING queries as the standard relevance model (train-sets.ts: SciFact train claims over 5 183, rel+100
// and rel+10 abstracts; XQuAD even-numbered articles in 12 languages over 1, 10 and 240 paragraphs and over
// article documents; every question plain and wrapped), each query's best RERANK_MODEL.depth regions as
// the served advanced tier sees them (rerank.ts rerankCandidate, the document title as fallback title).
// Fitted on SciFact train alone, the reranker's scores left most FinanceBench contexts empty on long
// documents (docs/models.md); hence every kind of training data.
import { rerankFeatures, RERANK_FEATURES, type SentenceEmbed } from '../../src/models/builtin-reranker-features.ts';
import type { RerankCandidate, RerankQuery } from '../../src/models/reranker.ts';
import { rerankCandidate, rerankQueryTerms } from '../../src/search/stages/rerank.ts';
import type { TrainVisitor } from './train-sets.ts';

/** One reranked candidate: every reranker feature (by RERANK_FEATURES order), its label, its query. */
export interface RerankRow {
  set: string;
  query: string;
  x: number[];
  y: 0 | 1;
}

/**
 * The visitor that turns each training query into reranker rows: the head of its ranking (best first), the
 * candidates and the query exactly as rerankRegions hands them to a reranker (document title as fallback
 * title, the counted query terms), and one feature vector per candidate from `featurise`.
 * @param out       rows are appended here
 * @param depth     regions reranked per query (the reranker's depth)
 * @param featurise the row vector of every candidate (the builtin model's features, or an external
 *                  reranker's value beside the standard score)
 */
export function rerankRows(out: RerankRow[], depth: number, featurise: (query: RerankQuery, candidates: RerankCandidate[]) => Promise<number[][]>): TrainVisitor {
  return async ({ set, key, text, ranked, judge }) => {
    const head = ranked.regions.slice(0, depth);
    const candidates = head.map((r) => rerankCandidate(r, ranked.stats!, ranked.docs.get(r.docId)?.title ?? ''));
    const x = await featurise({ text, lang: ranked.analysed.stemLang, terms: rerankQueryTerms(ranked.analysed.groups, ranked.stats!) }, candidates);
    head.forEach((r, i) => out.push({ set, query: key, x: x[i], y: judge(r.docId, r.chunks.map((c) => c.content).join('\n')) ? 1 : 0 }));
  };
}

/** The builtin reranker's feature vectors (RERANK_FEATURES order) of a query's candidates, as served. */
export function builtinFeatures(embed: SentenceEmbed): (query: RerankQuery, candidates: RerankCandidate[]) => Promise<number[][]> {
  return async (q, c) => rerankFeatures(q.text, q.lang, c, embed, undefined, q.terms).map((f) => RERANK_FEATURES.map((n) => f[n]));
}

/** The kind of data a set belongs to (languages pooled): "xquad-de n=10" → "xquad n=10". */
export const kindOf = (set: string): string => set.replace(/^xquad-[a-z]+/, 'xquad');

/**
 * Sample weights as in fit-relevance.ts: each query weighs 1 in total, then each kind of data the same
 * in total, so that no set dominates the fit.
 */
export function balancedWeights(rows: Array<{ set: string; query: string }>): number[] {
  const perQuery = new Map<string, number>();
  const queriesPerKind = new Map<string, Set<string>>();
  for (const r of rows) {
    const q = r.set + r.query;
    perQuery.set(q, (perQuery.get(q) ?? 0) + 1);
    const k = kindOf(r.set);
    if (!queriesPerKind.has(k)) queriesPerKind.set(k, new Set());
    queriesPerKind.get(k)!.add(q);
  }
  const total = [...queriesPerKind.values()].reduce((s, q) => s + q.size, 0);
  return rows.map((r) => (1 / perQuery.get(r.set + r.query)!) * (total / queriesPerKind.size / queriesPerKind.get(kindOf(r.set))!.size));
}

/**
 * Per kind of data and form (plain / wrapped), for predicted probabilities p (one per row): queries, share
 * whose best-scored hit is relevant, hit-level nDCG@10, share with a relevant hit ≥ 0.3 (a non-empty,
 * right context at the default min_relevance), share of relevant / irrelevant hits ≥ 0.3, log-loss.
 */
export function reportByKind(rows: RerankRow[], p: number[]): Array<Record<string, string | number>> {
  const form = (q: string) => q.slice(q.lastIndexOf('|') + 1);
  const groups = new Map<string, Map<string, number[]>>();
  rows.forEach((r, i) => {
    const g = `${kindOf(r.set)} ${form(r.query)}`;
    if (!groups.has(g)) groups.set(g, new Map());
    const byQ = groups.get(g)!;
    byQ.set(r.set + r.query, [...(byQ.get(r.set + r.query) ?? []), i]);
  });
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const dcg = (ys: number[]) => ys.slice(0, 10).reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([kind, byQ]) => {
    let top1 = 0, anyRel = 0, ndcg = 0, relPass = 0, rel = 0, irrPass = 0, irr = 0, ll = 0, n = 0;
    for (const ids of byQ.values()) {
      const order = [...ids].sort((a, b) => p[b] - p[a]);
      if (rows[order[0]].y) top1++;
      if (ids.some((i) => rows[i].y && p[i] >= 0.3)) anyRel++;
      const ideal = dcg(ids.map((i) => rows[i].y).sort((a, b) => b - a));
      ndcg += ideal > 0 ? dcg(order.map((i) => rows[i].y)) / ideal : 0;
      for (const i of ids) {
        const pi = Math.min(1 - 1e-9, Math.max(1e-9, p[i]));
        ll -= rows[i].y ? Math.log(pi) : Math.log(1 - pi);
        n++;
        if (rows[i].y) { rel++; if (p[i] >= 0.3) relPass++; } else { irr++; if (p[i] >= 0.3) irrPass++; }
      }
    }
    const q = byQ.size;
    return { kind, queries: q, top1: round(top1 / q), 'nDCG@10': round(ndcg / q), anyRelevantAbove03: round(anyRel / q), relevantAbove03: round(relPass / Math.max(1, rel)), irrelevantAbove03: round(irrPass / Math.max(1, irr)), logLoss: round(ll / n) };
  });
}
