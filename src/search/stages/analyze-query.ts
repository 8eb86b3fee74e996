// Stage 1 of retrieval (DESIGN.md §2, §4): detect the query's language and analyse it into BM25 terms with
// the same analyser that produced the documents' token column, so lexical matching is symmetric.
// Stopwords of the query's language and of English (agents wrap questions in English instructions) are
// dropped from the query terms (analysis/stopwords.ts) unless nothing else would remain, so "What is the
// … of the …" and instruction filler do not outweigh the content words (issue 11).
import { analyze, detectLanguage } from '../../analysis/analyzer.ts';
import { stopTerms } from '../../analysis/stopwords.ts';

export interface AnalysedQuery {
  /** ISO 639-1 code reported as `detected_lang`; null when detection is unreliable. */
  detectedLang: string | null;
  /** Language whose stemmer produced `terms` (detected, else the fallback, else null = no stemming). */
  stemLang: string | null;
  /**
   * BM25 query terms, duplicates removed: the query analysed with `stemLang`, followed by the unstemmed
   * forms that differ. Documents whose language was undetectable were indexed unstemmed, so the unstemmed
   * forms let them match too; in a document stemmed in `stemLang` they find nothing (its tokens are stems),
   * so they cost nothing there.
   */
  terms: string[];
  /**
   * One group per distinct query word: its stemmed term first, then its unstemmed form when that differs.
   * A chunk "has" the word when it holds any term of the group (stages/coverage.ts).
   */
  groups: string[][];
  /** Distinct terms of the primary (stemmed) analysis = groups.length: the query length features normalise by. */
  termCount: number;
}

/**
 * Analyse a search query.
 * @param query      the user's query text
 * @param fallbackLang language to stem with when detection is unreliable (short queries such as
 *                   "insulin resistance" are rarely detectable, yet the documents were stemmed in their
 *                   own language; the caller passes the namespace's dominant document language), or null
 * @returns detected language (null on low confidence), the stemming language used, terms and word groups
 * @throws Error when the language detector has not been initialised (analysis/analyzer.ts initAnalysis)
 */
export function analyseQuery(query: string, fallbackLang: string | null): AnalysedQuery {
  const detected = detectLanguage(query);
  const detectedLang = detected.reliable ? detected.code : null;
  const stemLang = detectedLang ?? fallbackLang;
  const stemmed = analyze(query, stemLang);
  // The same segmentation runs in both analyses, so the i-th terms come from the same word.
  const plain = stemLang === null ? stemmed : analyze(query, null);
  const paired = plain.length === stemmed.length;
  const byPrimary = new Map<string, string[]>();
  stemmed.forEach((t, i) => {
    const g = byPrimary.get(t) ?? [t];
    if (paired && !g.includes(plain[i])) g.push(plain[i]);
    byPrimary.set(t, g);
  });
  let groups = [...byPrimary.values()];
  const stop = new Set([...stopTerms(stemLang), ...stopTerms('en')]);
  const content = groups.filter((g) => !g.some((t) => stop.has(t)));
  if (content.length > 0) groups = content;
  const terms = [...new Set(groups.flat())];
  if (!paired && stemLang !== null) for (const t of plain) if (!terms.includes(t) && !stop.has(t)) terms.push(t);
  return { detectedLang, stemLang, terms, groups, termCount: groups.length };
}
