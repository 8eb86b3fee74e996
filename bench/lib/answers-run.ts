// One case of the answer-in-context evaluation asked the way bench/answers.ts asks it (default request,
// the same request as JSON, the full ranking; lib/answers-common.ts ask) and judged with the evaluation
// API's own judge (src/evaluations/judge.ts): the row bench/answers.ts prints, also printed beside the
// evaluation API's report by bench/answers-api.ts.
import { mean, ndcgAt, recallAt, dedupe } from './beir.ts';
import type { BenchApp } from './bench-app.ts';
import { ask, Calibration, round, verboseForm } from './answers-common.ts';
import { foundInContext, missCause, rankMeasures, type MissCause } from '../../src/evaluations/judge.ts';
import type { EvalCase } from './answers-sets.ts';
import { percentile } from './quality.ts';

/** One row of the answer-in-context table. */
export interface Row {
  case: string;
  form: 'plain' | 'verbose';
  n: number;
  in_context: number;
  tokens: number;
  p50_ms: number;
  ndcg10: number;
  recall10: number;
  empty: number;
  /** Misses by cause, where the case names each question's document (see missCause). */
  misses?: Record<MissCause, number>;
}

/**
 * Ask every question of a case in one form and aggregate: share found in context, mean tokens, p50
 * latency, nDCG@10 and recall@10 (hit level where the case says so, else document level), empty contexts,
 * misses by cause (where the case names each question's document); `calib` collects the ranking's
 * (score, relevant) pairs.
 * @param opts.body request fields merged into every request; opts.perQuestion one stderr line per question
 */
export async function runCase(app: BenchApp, c: EvalCase, form: 'plain' | 'verbose', calib: Calibration, opts: { body?: Record<string, unknown>; perQuestion?: boolean } = {}): Promise<Row> {
  const body = opts.body ?? {};
  const perQuestion = opts.perQuestion ?? false;
  const ok: number[] = [], tokens: number[] = [], ms: number[] = [], ndcg: number[] = [], recall: number[] = [];
  let empty = 0;
  const misses: Record<MissCause, number> = { empty: 0, wrong_document: 0, not_ranked: 0, below_threshold: 0, cut_by_budget: 0 };
  for (const [i, q] of c.questions.entries()) {
    const text = form === 'plain' ? q.text : verboseForm(q.text, i);
    const a = await ask(app, q.project, text, { ...(q.extra ?? {}), ...body }, q.path);
    const hit = foundInContext(q, a.context, a.admitted);
    ok.push(hit ? 1 : 0);
    if (!hit && q.docs) misses[missCause(q, a.admitted, a.ranking, typeof body.min_relevance === 'number' ? body.min_relevance : 0.3)]++;
    if (perQuestion) {
      const r = a.ranking.findIndex((h) => q.relevant(h));
      console.error(`${c.name} ${form} ${String(i).padStart(2)} ${hit ? 'OK ' : '-- '}${!hit && q.docs ? missCause(q, a.admitted, a.ranking, 0.3).padEnd(16) : ''.padEnd(16)} rank=${r} s=${r >= 0 ? a.ranking[r].score.toFixed(3) : '-'} top=${a.ranking[0]?.score.toFixed(3)} adm=${a.admitted.length} docs=${new Set(a.admitted.map((h) => h.doc_id)).size} tok=${a.tokens} | ${q.text.slice(0, 100)}`);
    }
    tokens.push(a.tokens);
    ms.push(a.ms);
    if (a.admitted.length === 0) empty++;
    if (c.hitLevel) {
      const m = rankMeasures(q, a.ranking);
      ndcg.push(m.ndcg10);
      recall.push(m.recall10);
    } else {
      // Document level (BEIR): a document's rank is that of its first relevant-or-other hit.
      const ranked = dedupe(a.ranking.filter((h) => q.relevant(h) || !q.qrels.has(h.doc_id)).map((h) => h.doc_id));
      ndcg.push(ndcgAt(10, ranked, q.qrels));
      recall.push(recallAt(10, ranked, q.qrels));
    }
    for (const h of a.ranking) calib.add(h.score, q.relevant(h));
  }
  return {
    case: c.name, form, n: c.questions.length, in_context: round(mean(ok)), tokens: Math.round(mean(tokens)),
    p50_ms: round(percentile(ms, 50), 1), ndcg10: round(mean(ndcg)), recall10: round(mean(recall)), empty: round(empty / Math.max(1, c.questions.length)),
    ...(c.questions.some((q) => q.docs) ? { misses } : {}),
  };
}

