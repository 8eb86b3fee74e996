// Features of the builtin reranker (DESIGN.md §3): lexical, proximity and semantic evidence that the
// first stage does not see, computed over the candidate pool of one query. Chosen by 5-fold
// cross-validation on SciFact TRAIN queries (bench/fit-reranker.ts; never test) from a wider set
// (IDF-weighted coverage of the whole passage, ordered-bigram matches, minimal covering window, GloVe
// soft term matching, passage length): this subset kept all of their gain.
//   std        logit of the standard tier's calibrated score (all fused signals)
//   title_cov  share of the query's term weight found in the passage title (heading path)
//   sent_cov   best single sentence's share of the query's term weight (a claim usually matches one
//              sentence of an abstract: a proximity signal)
//   sent_cos   best single sentence's cosine to the query (GloVe SIF vectors of the builtin embedder)
//   *_gap      the value minus the best value in the pool (for title_cov, sent_cov, sent_cos, and the
//              standard features cos and bm25_per_term): how far a passage is behind the best candidate
// Term weights are pool IDFs: ln((P + 1) / (df + 0.5)) over the P candidate passages, so a query term
// that every candidate contains counts little and a rare one much (no corpus statistics needed).
// Terms come from the shared analyser (analysis/analyzer.ts) applied word by word with a memo: runs of
// letters/digits are cut by a regular expression and each distinct run is analysed once per process
// (Intl.Segmenter over whole passages cost ≈5× more; Thai or CJK runs are still segmented by analyze).
import { analyze } from '../analysis/analyzer.ts';
import type { RerankCandidate } from './reranker.ts';

export const RERANK_FEATURES = ['std', 'title_cov', 'sent_cov', 'sent_cos', 'title_cov_gap', 'sent_cov_gap', 'sent_cos_gap', 'bm25_per_term_gap', 'cos_gap_pool'] as const;
export type RerankFeatureName = (typeof RERANK_FEATURES)[number];
export type RerankFeatures = Record<RerankFeatureName, number>;

/** Sentence vectors: L2-normalised, zero vector for text without known words (BuiltinEmbedder.embedSync). */
export type SentenceEmbed = (text: string) => Float32Array;

const WORD_RUN = /[\p{L}\p{N}\p{M}]+/gu;
/** Distinct runs remembered per language before the memo is reset (bounds memory to a few MB). */
const MEMO_LIMIT = 200_000;
const memos = new Map<string, Map<string, string[]>>();

/** Distinct analysed terms of `text` (same terms as analyze(), apostrophes and hyphens split). */
export function termSet(text: string, lang: string | null): Set<string> {
  const key = lang ?? '';
  let memo = memos.get(key);
  if (!memo || memo.size > MEMO_LIMIT) {
    memo = new Map();
    memos.set(key, memo);
  }
  const out = new Set<string>();
  for (const m of text.matchAll(WORD_RUN)) {
    const word = m[0].toLowerCase();
    let terms = memo.get(word);
    if (!terms) {
      terms = analyze(word, lang);
      memo.set(word, terms);
    }
    for (const t of terms) out.add(t);
  }
  return out;
}

/** Sentences shorter than this (characters) are not scored on their own (headers, "Methods", ...). */
const MIN_SENTENCE_CHARS = 20;
const SENTENCE_END = /(?<=[.!?])\s+/;

/** Split a passage into sentences; a passage without a sentence boundary is one sentence. */
export function sentences(text: string): string[] {
  const parts = text.split(SENTENCE_END).map((s) => s.trim()).filter((s) => s.length >= MIN_SENTENCE_CHARS);
  return parts.length ? parts : [text];
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

const logit = (p: number) => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};

/** What the features need of one passage, independent of the query (so it can be cached). */
export interface PassageEvidence {
  /** Analysed terms of each sentence. */
  sentTerms: Array<Set<string>>;
  /** Analysed terms of the title (heading path). */
  title: Set<string>;
  /** Union of the above. */
  all: Set<string>;
  /** Sentence vectors (SentenceEmbed), one per sentence. */
  sentVecs: Float32Array[];
}

/** Evidence of one passage: its sentences' terms and vectors and its title's terms. */
export function passageEvidence(c: Pick<RerankCandidate, 'title' | 'text'>, lang: string | null, embed: SentenceEmbed): PassageEvidence {
  const sents = sentences(c.text);
  const sentTerms = sents.map((s) => termSet(s, lang));
  const title = termSet(c.title, lang);
  const all = new Set<string>(title);
  for (const st of sentTerms) for (const t of st) all.add(t);
  return { sentTerms, title, all, sentVecs: sents.map((s) => embed(s)) };
}

/** Approximate heap bytes of an evidence record (for a size-bounded cache). */
export function evidenceBytes(e: PassageEvidence): number {
  let terms = e.title.size;
  for (const s of e.sentTerms) terms += s.size;
  return 200 + terms * 60 + e.all.size * 60 + e.sentVecs.reduce((n, v) => n + 64 + v.byteLength, 0);
}

/**
 * Feature vectors of every candidate of one query (definitions in the file header).
 * @param query  query text
 * @param lang   stemming language of the query analysis (null = unstemmed)
 * @param candidates the pool, best first by the standard score
 * @param embed  sentence embedder (GloVe SIF)
 * @param evidence where passage evidence comes from (default: computed with passageEvidence; the
 *        reranker passes a cached lookup — the features are identical either way)
 * @param queryTerms the query's counted content terms (RerankQuery.terms); absent = every term of `query`
 * @returns one feature record per candidate, in input order
 */
export function rerankFeatures(
  query: string,
  lang: string | null,
  candidates: RerankCandidate[],
  embed: SentenceEmbed,
  evidence: (c: RerankCandidate) => PassageEvidence = (c) => passageEvidence(c, lang, embed),
  queryTerms?: string[],
): RerankFeatures[] {
  const terms = queryTerms ?? [...termSet(query, lang)];
  const qv = embed(query);
  const pool = candidates.map((c) => {
    const e = evidence(c);
    let sentCos = 0;
    for (const v of e.sentVecs) sentCos = Math.max(sentCos, dot(qv, v));
    return { sentTerms: e.sentTerms, title: e.title, all: e.all, sentCos };
  });
  const P = pool.length;
  const weight = new Map(terms.map((t) => [t, Math.log((P + 1) / (pool.filter((p) => p.all.has(t)).length + 0.5))]));
  const total = terms.reduce((s, t) => s + weight.get(t)!, 0);
  const coverage = (set: Set<string>) => {
    if (total <= 0) return 0;
    let w = 0;
    for (const t of terms) if (set.has(t)) w += weight.get(t)!;
    return w / total;
  };
  const raw = candidates.map((c, i) => {
    const p = pool[i];
    return {
      std: logit(c.first.score),
      title_cov: coverage(p.title),
      sent_cov: Math.max(0, ...p.sentTerms.map(coverage)),
      sent_cos: p.sentCos,
      bm25_per_term: c.first.features.bm25_per_term ?? 0,
      cos: c.first.features.cos ?? 0,
    };
  });
  const best = (k: keyof (typeof raw)[number]) => Math.max(...raw.map((r) => r[k]));
  const bTitle = best('title_cov');
  const bSent = best('sent_cov');
  const bCos = best('sent_cos');
  const bBm = best('bm25_per_term');
  const bAnn = best('cos');
  return raw.map((r) => ({
    std: r.std,
    title_cov: r.title_cov,
    sent_cov: r.sent_cov,
    sent_cos: r.sent_cos,
    title_cov_gap: r.title_cov - bTitle,
    sent_cov_gap: r.sent_cov - bSent,
    sent_cos_gap: r.sent_cos - bCos,
    bm25_per_term_gap: r.bm25_per_term - bBm,
    cos_gap_pool: r.cos - bAnn,
  }));
}
