// How an evaluation judges one question against docsearch's output: which hits of a ranking are
// relevant to it, whether its evidence reached the prompt-ready context, why it did not, and the ranking
// measures of the full ranking (hit level). One module for the evaluation API (evaluation-run.ts) and
// the answer-in-context benchmark (bench/answers.ts), so the two report the same figures for the same
// searches.

/** The view of a search hit the judge reads (a `format: json` hit). */
export interface JudgedHit {
  doc_id: string;
  /** 1-based pages the hit spans. */
  pages: number[];
  chunk_indices?: number[];
  content: string;
  score: number;
}

/** What counts as found for one question. */
export interface Judge {
  /** Is this hit evidence for the question? */
  relevant(hit: Omit<JudgedHit, 'score'>): boolean;
  /** Where the answer is known as text: does the context text hold it? (Absent: any admitted hit relevant.) */
  inContext?(context: string): boolean;
  /** The documents that hold the answer, where the case names them (the `wrong_document` miss cause). */
  docs?: ReadonlySet<string>;
}

/**
 * An expectation as the evaluation API takes it: a document, optionally narrowed to pages or chunk
 * indices, or several documents any of which holds the answer; and/or answer strings. At least one of
 * `docId`, `docIds` and `answers` is given.
 */
export interface Expectation {
  docId?: string;
  /** Documents any of which holds the answer (several relevant documents, as BEIR qrels list them). */
  docIds?: string[];
  /** 1-based page numbers; a hit spanning any of them is evidence. */
  pages?: number[];
  /** Chunk indices of `docId`; a hit holding any of them is evidence. */
  chunkIndices?: number[];
  /** Answer strings; compared lower-cased, NFKC-normalised, whitespace collapsed. */
  answers?: string[];
}

/** Why a question whose evidence is not in the context missed (missCause). */
export type MissCause = 'empty' | 'wrong_document' | 'not_ranked' | 'below_threshold' | 'cut_by_budget';
export const MISS_CAUSES: readonly MissCause[] = ['empty', 'wrong_document', 'not_ranked', 'below_threshold', 'cut_by_budget'];

/** Lower-cased, NFKC-normalised, whitespace-collapsed text for answer-span matching. */
export function normaliseText(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
}

/**
 * The judge of an expectation. A hit is relevant when it is of `docId` (if given), of one of `docIds` (if
 * given), spans one of `pages` (if given), holds one of `chunkIndices` (if given) and contains one of
 * `answers` (if given). With
 * `answers`, found-in-context means the context text contains one of them; otherwise that an admitted
 * hit is relevant.
 */
export function judgeOf(e: Expectation): Judge {
  const pages = e.pages ? new Set(e.pages) : null;
  const chunks = e.chunkIndices ? new Set(e.chunkIndices) : null;
  const gold = e.answers?.map(normaliseText);
  const docs = e.docId !== undefined || e.docIds ? new Set([...(e.docId !== undefined ? [e.docId] : []), ...(e.docIds ?? [])]) : undefined;
  return {
    ...(docs ? { docs } : {}),
    relevant: (h) => (e.docId === undefined || h.doc_id === e.docId)
      && (!e.docIds || docs!.has(h.doc_id))
      && (!pages || h.pages.some((p) => pages.has(p)))
      && (!chunks || (h.chunk_indices ?? []).some((c) => chunks.has(c)))
      && (!gold || gold.some((a) => normaliseText(h.content).includes(a))),
    ...(gold ? { inContext: (ctx: string) => gold.some((a) => normaliseText(ctx).includes(a)) } : {}),
  };
}

/**
 * Is the question's evidence in the prompt-ready context?
 * @param context  the `context` of the prompt-ready answer
 * @param admitted the hits of the same request with `format: json` (same ranking, thresholds and budget)
 */
export function foundInContext(j: Judge, context: string, admitted: JudgedHit[]): boolean {
  return j.inContext ? j.inContext(context) : admitted.some((h) => j.relevant(h));
}

/**
 * Why a question whose evidence is not in the context missed, first cause that applies: the context is
 * empty; no admitted hit is of a right document (only where the judge names them); the evidence is not
 * in the full ranking; it is ranked but scored under `minRelevance`; it scored enough but the budget cut it.
 * @param ranking the full ranking (min_relevance 0, no expansion, the largest budget)
 */
export function missCause(j: Judge, admitted: JudgedHit[], ranking: JudgedHit[], minRelevance: number): MissCause {
  if (admitted.length === 0) return 'empty';
  if (j.docs && !admitted.some((h) => j.docs!.has(h.doc_id))) return 'wrong_document';
  const first = ranking.find((h) => j.relevant(h));
  if (!first) return 'not_ranked';
  return first.score < minRelevance ? 'below_threshold' : 'cut_by_budget';
}

/** Hit-level ranking measures of one question over its full ranking. */
export interface RankMeasures {
  /** 1-based rank of the first relevant hit; null when none is ranked. */
  rank: number | null;
  /** Score of that hit; null when none. */
  score: number | null;
  /** nDCG@10 with binary gains; the ideal ranking puts every relevant hit of the ranking first. */
  ndcg10: number;
  /** 1 when a relevant hit is in the top 10, else 0. */
  recall10: number;
  /** 1 / rank of the first relevant hit over the whole ranking; 0 when none. */
  rr: number;
}

/** Hit-level nDCG@10, recall@10 and reciprocal rank of one ranking. */
export function rankMeasures(j: Judge, ranking: JudgedHit[]): RankMeasures {
  const rels = ranking.map((h) => (j.relevant(h) ? 1 : 0));
  const ideal = Math.min(10, rels.reduce((s: number, r) => s + r, 0));
  const idcg = Array.from({ length: ideal }, (_, i) => 1 / Math.log2(i + 2)).reduce((s, x) => s + x, 0);
  const ndcg10 = idcg > 0 ? rels.slice(0, 10).reduce((s: number, r, i) => s + r / Math.log2(i + 2), 0) / idcg : 0;
  const at = rels.indexOf(1);
  return {
    rank: at >= 0 ? at + 1 : null, score: at >= 0 ? ranking[at].score : null,
    ndcg10, recall10: rels.slice(0, 10).some(Boolean) ? 1 : 0, rr: at >= 0 ? 1 / (at + 1) : 0,
  };
}

/** One bin of a reliability curve: hits whose score is in [from, to). */
export interface ReliabilityBin {
  from: number;
  to: number;
  n: number;
  /** Mean score of the bin's hits. */
  mean_score: number;
  /** Share of the bin's hits that are relevant. */
  observed: number;
}

/** Reliability (calibration) of `score`: 10 equal-width bins of (score, relevant?) pairs. */
export class Calibration {
  readonly bins = Array.from({ length: 10 }, () => ({ n: 0, pos: 0, sum: 0 }));

  add(score: number, relevant: boolean): void {
    const b = this.bins[Math.min(9, Math.max(0, Math.floor(score * 10)))];
    b.n++;
    b.sum += score;
    if (relevant) b.pos++;
  }

  /** The bins that hold hits, lowest first. */
  curve(): ReliabilityBin[] {
    return this.bins.flatMap((b, i) => (b.n ? [{ from: i / 10, to: (i + 1) / 10, n: b.n, mean_score: round(b.sum / b.n), observed: round(b.pos / b.n) }] : []));
  }

  /** Rows "0.3-0.4: n, mean predicted, observed" for bins with data (the benchmark's table). */
  rows(): Array<{ bin: string; n: number; predicted: number; observed: number }> {
    return this.curve().map((b) => ({ bin: `${b.from.toFixed(1)}-${b.to.toFixed(1)}`, n: b.n, predicted: b.mean_score, observed: b.observed }));
  }
}

/** `v` rounded to `d` decimals. */
export const round = (v: number, d = 3): number => Math.round(v * 10 ** d) / 10 ** d;

/** Percentile (nearest rank) of a list of numbers; 0 for an empty list. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
