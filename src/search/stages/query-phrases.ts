// Phrase helpers of query analysis (analyze-query.ts): the adjacent word pairs of a query's sentences that
// phrase evidence (coverage.ts `pair_cov`) and closed forms ("Best Buy" → bestbuy) are built from. Kept
// apart so analyze-query.ts holds the analysis itself.
import { analyze } from '../../analysis/analyzer.ts';

/**
 * Adjacent word pairs given a closed form, in query order: a question has far fewer (the evaluation's
 * instruction-wrapped questions ≤ 25); a pasted passage of 10 000 characters would otherwise add ≈ 2 000
 * BM25 terms to the ≈ 1 000 of its words.
 */
export const MAX_CLOSED_PAIRS = 48;

/** Shortest word (characters) that joins its neighbour into a closed form: "a"/"i"-like fragments do not. */
const CLOSED_MIN_CHARS = 2;

/**
 * The closed (solid) form of two adjacent query words — how a name or compound is often written in titles,
 * file names and tickers ("BESTBUY_2024Q2_10Q.pdf", "dataset", "Kaffeemaschine") — analysed as a document
 * word is, stemmed and not. Only for two words of letters (no digits: "FY 2023" is a compound already), and
 * only when the joined text analyses to ONE term: where the analyser cuts text itself (character bigrams for
 * Chinese and Japanese, a segmenter for Thai) the joined text comes back as the words' own bigrams or
 * segments, which are not a closed form — taken as forms they made a chunk holding a neighbouring bigram
 * "hold" a word (measured before this rule: training books zh 0.88 → 0.95, XQuAD zh n=10 0.99 → 0.97).
 * Elasticsearch's shingle filter with an empty separator builds the same terms for the same reason.
 * @param a unstemmed first word, b unstemmed second word
 * @returns distinct terms, each a single analysed word (empty when either word has a digit or is shorter
 *          than CLOSED_MIN_CHARS, or the joined text is more than one term)
 */
export function closedWordForms(a: string, b: string, lang: string | null): string[] {
  if (a.length < CLOSED_MIN_CHARS || b.length < CLOSED_MIN_CHARS || !/^\p{L}[\p{L}\p{M}]*$/u.test(a) || !/^\p{L}[\p{L}\p{M}]*$/u.test(b)) return [];
  const stemmed = analyze(a + b, lang);
  const plain = lang === null ? stemmed : analyze(a + b, null);
  if (stemmed.length !== 1 || plain.length !== 1) return [];
  return [...new Set([stemmed[0], plain[0]])];
}

/** The runs of consecutive group indices in a clause's words as written (a stopword, undefined, ends a run). */
export function runsOfGroups(seq: Array<number | undefined | null>): number[][] {
  const runs: number[][] = [[]];
  for (const g of seq) {
    if (g === undefined || g === null) runs.push([]);
    else runs[runs.length - 1].push(g);
  }
  return runs.filter((r) => r.length > 1);
}

/**
 * A sentence's group sequence for phrase pairs: stopwords (undefined) are skipped as a document's stored
 * pairs skip them; a query-only stopword (null) ends the sequence, since a document stores no pair across it.
 */
export function splitAtBreaks(seq: Array<number | undefined | null>): number[][] {
  const out: number[][] = [[]];
  for (const g of seq) {
    if (g === null) out.push([]);
    else if (g !== undefined) out[out.length - 1].push(g);
  }
  return out.filter((x) => x.length > 0);
}

/**
 * Distinct ordered pairs of adjacent, different groups in each sequence (pairs never cross sequences).
 * @param sequences group indices in text order, one array per sentence
 */
export function phrasePairs(sequences: number[][]): Array<[number, number]> {
  const seen = new Set<string>();
  const out: Array<[number, number]> = [];
  for (const seq of sequences) {
    for (let i = 1; i < seq.length; i++) {
      const a = seq[i - 1];
      const b = seq[i];
      if (a === b || seen.has(`${a},${b}`)) continue;
      seen.add(`${a},${b}`);
      out.push([a, b]);
    }
  }
  return out;
}
