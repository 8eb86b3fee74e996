// Names a file name writes as one word and a question writes as several: "Bank of America" for
// BANKOFAMERICA_2023_10K, "American Express" for AMERICANEXPRESS_2022_10K, "Coca-Cola" for COCACOLA_2017_10K.
// A query word names the labels whose words begin with it (label-index.ts), so such a name used to be
// named by its first word alone: "American" for both American Express and American Water Works (whose
// in-document rankings then competed), "Bank" not at all (every bank's filing writes it). A run of
// consecutive written words whose concatenation a label word equals or begins with names those labels
// instead, as one word — the way a file-naming convention joins a name (cf. the compound splitting of
// word-delimiter filters, here in reverse: the query's words are joined, not the label's split).
// Cost: at most MAX_RUN_WORDS runs per written word, each one binary search in the project's sorted label
// words (label-index.ts naming).

/** Most written words one run joins ("American Water Works" = 3, "Bank of New York" = 4). */
export const MAX_RUN_WORDS = 4;

/** Shortest concatenation that may name: shorter joins of common words ("of a", "in Q4") are no names. */
export const MIN_RUN_CHARS = 6;

/** A run of written words: their concatenation (lower case, letters and digits) and the words as written. */
export interface WordRun {
  text: string;
  /** The written words of the run (punctuation trimmed), for mapping them to the query's word groups. */
  words: string[];
  /** Index of its first written word. */
  start: number;
}

/**
 * The runs of a query that may be a name written as one label word: 2…MAX_RUN_WORDS consecutive written
 * words, or one word joined by inner punctuation ("Coca-Cola", "Kraft-Heinz"), whose concatenation has at
 * least MIN_RUN_CHARS characters. Words with digits take no part: "2023 Q2" joins to a file name's period
 * ("2023q2"), which narrows but never names (route-documents.ts). A run does not cross a word that ends a
 * clause ("," "." ";" ":" "?" "!" or a closing bracket). Possessive "'s" is dropped ("America's" → america).
 * @param query the query text as written (at most a few thousand words)
 * @returns runs in query order, the longest first at each start; O(words · MAX_RUN_WORDS)
 */
export function queryWordRuns(query: string): WordRun[] {
  const words: Array<{ raw: string; joined: string; inner: boolean; ends: boolean; alpha: boolean }> = [];
  for (const token of query.split(/\s+/)) {
    const raw = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/['’]s$/u, '');
    if (!raw) continue;
    const joined = raw.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    words.push({ raw, joined, inner: joined.length < raw.length, ends: /[,.;:?!)\]]$/.test(token), alpha: !/\p{N}/u.test(joined) });
  }
  const out: WordRun[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!words[i].alpha) continue;
    let end = i;
    while (end + 1 < words.length && end - i + 1 < MAX_RUN_WORDS && !words[end].ends && words[end + 1].alpha) end++;
    for (let j = end; j >= i; j--) {
      if (j === i && !words[i].inner) continue;
      const text = words.slice(i, j + 1).map((w) => w.joined).join('');
      if (text.length >= MIN_RUN_CHARS) out.push({ text, words: words.slice(i, j + 1).map((w) => w.raw), start: i });
    }
  }
  return out;
}

/**
 * The runs that name documents: at each start the longest run `naming` finds documents for, and no run
 * that starts inside one already taken.
 * @param runs   queryWordRuns() of the query
 * @param naming documents whose label has a word equal to or beginning with the run's text (in scope)
 * @returns the naming runs with their documents, in query order
 */
export function namingRuns(runs: readonly WordRun[], naming: (text: string) => string[]): Array<{ run: WordRun; docs: string[] }> {
  const out: Array<{ run: WordRun; docs: string[] }> = [];
  let taken = -1;
  for (const run of runs) {
    if (run.start <= taken) continue;
    const docs = naming(run.text);
    if (docs.length === 0) continue;
    out.push({ run, docs });
    taken = run.start + run.words.length - 1;
  }
  return out;
}
