// Stage 1 of retrieval (DESIGN.md §2, §4): detect the query's language and analyse it into BM25 terms with
// the same analyser that produced the documents' token column, so lexical matching is symmetric.
import { analyze, detectLanguage } from '../../analysis/analyzer.ts';

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
  /** Distinct terms of the primary (stemmed) analysis: the query length BM25 features normalise by. */
  termCount: number;
}

/**
 * Analyse a search query.
 * @param query      the user's query text
 * @param fallbackLang language to stem with when detection is unreliable (short queries such as
 *                   "insulin resistance" are rarely detectable, yet the documents were stemmed in their
 *                   own language; the caller passes the namespace's dominant document language), or null
 * @returns detected language (null on low confidence), the stemming language used, and distinct terms
 * @throws Error when the language detector has not been initialised (analysis/analyzer.ts initAnalysis)
 */
export function analyseQuery(query: string, fallbackLang: string | null): AnalysedQuery {
  const detected = detectLanguage(query);
  const detectedLang = detected.reliable ? detected.code : null;
  const stemLang = detectedLang ?? fallbackLang;
  const primary = [...new Set(analyze(query, stemLang))];
  const terms = stemLang === null ? primary : [...new Set([...primary, ...analyze(query, null)])];
  return { detectedLang, stemLang, terms, termCount: primary.length };
}
