// Stage 1 of retrieval (DESIGN.md §2, §4): detect the query's language and analyse it into BM25 terms with
// the same analyser that produced the documents' token column, so lexical matching is symmetric.
// Stopwords of the query's language and of English, and the meta words of prompt templates ("answer the
// following question"), are dropped from the query terms (analysis/stopwords.ts) unless nothing else would
// remain, so "What is the … of the …" and instruction filler do not outweigh the content words.
// Question focus: when a query of several sentences or clauses holds a question (a segment ending in ?, ？
// or ؟), the words that occur only outside the question(s) weigh FOCUS_OUTSIDE_WEIGHT: an agent's
// "Assume you are an analyst preparing a briefing. <question>? Use the details in …" keeps its question in
// front, while words outside it ("… shown in the cash flow statement") still count.
import { analyze, analyzeWords, detectLanguage } from '../../analysis/analyzer.ts';
import { relatedStems } from '../../analysis/english-forms.ts';
import { closedWordForms, MAX_CLOSED_PAIRS, phrasePairs, runsOfGroups, splitAtBreaks } from './query-phrases.ts';
import { instructionMarkerTerms, promptTerms, queryStopTerms, stopTerms } from '../../analysis/stopwords.ts';

/** One sentence of a query: its word groups and whether it is a question (isQuestion). */
export interface QuerySentence {
  groups: number[];
  question: boolean;
  /**
   * An instruction: not a question, and it holds an instruction marker word ("answer", "question",
   * "assistant", … analysis/stopwords.ts instructionMarkerTerms). See coverage.ts sentenceKept.
   */
  instruction?: boolean;
}

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
  /** Weight of each group (1, or FOCUS_OUTSIDE_WEIGHT for words only outside the question). */
  weights: number[];
  /** Group indices of each sentence/clause of the query (stages/coverage.ts weighs segments). */
  segments: number[][];
  /** Group indices of each sentence of the query (BOUNDARY only; coverage.ts drops unmatched sentences). */
  sentences: QuerySentence[];
  /**
   * The query's phrase pairs: [a, b] group indices of adjacent content words within a sentence (stopwords
   * and prompt words skipped, as a document's stored pairs skip them: analysis/term-hash.ts pairHashSet),
   * distinct, in query order; then [a, a] for each letter/digit compound, the phrase of its own parts.
   * coverage.ts measures which of them a chunk holds (`pair_cov`).
   */
  pairs: Array<[number, number]>;
  /**
   * Per pair of `pairs`, the adjacent term pairs a document's stored pairs (analysis/term-hash.ts
   * pairHashSet) may hold for it. For [a, b]: each term ending word a × each term of word b, where a
   * letter/digit compound ends in its last part ("FY2023 revenue" is stored as … fy, 2023, revenu, so its
   * pair is (2023, revenu)). For [a, a], a compound's own phrase: its adjacent parts ((fy, 2023), held by
   * "FY2023" and "FY 2023" alike).
   */
  pairTerms: Array<Array<[string, string]>>;
  /** Per group, the parts of its letter/digit compound (BM25 terms only; empty for other words). */
  parts: string[][];
  /** Distinct terms of the primary (stemmed) analysis = groups.length: the query length features normalise by. */
  termCount: number;
}

/**
 * BM25 boosts of the query terms whose word weighs other than 1 (retrieve.ts). A compound's parts take
 * its weight unless they are a word of the query themselves; a part of several compounds takes the highest.
 */
export function termBoosts(q: Pick<AnalysedQuery, 'groups' | 'weights' | 'parts'>): Map<string, number> {
  const out = new Map<string, number>();
  q.groups.forEach((g, i) => { if (q.weights[i] !== 1) for (const t of g) out.set(t, q.weights[i]); });
  const own = new Set(q.groups.flat());
  const partWeight = new Map<string, number>();
  q.parts.forEach((ps, i) => { for (const t of ps) if (!own.has(t)) partWeight.set(t, Math.max(partWeight.get(t) ?? 0, q.weights[i])); });
  for (const [t, w] of partWeight) if (w !== 1) out.set(t, w);
  return out;
}

/** Weight of query words that occur only outside the question segment(s) of a longer query. */
export const FOCUS_OUTSIDE_WEIGHT = 0.5;

/**
 * Sentence/clause boundaries: . ! ? : ; after two characters that are neither space nor dot, followed by
 * whitespace (so "U.S. dollars", "e.g. this" and "3.5" stay whole), the CJK
 * and Arabic terminators, line breaks. A segment ending in a question mark is a question (isQuestion).
 */
const BOUNDARY = /(?<=[^\s.]{2}[.!?:;\u037e])\s+|(?<=[。！？؟])\s*|\n+/;
const QUESTION_END = /[?？؟\u037e\u1367]$/;
/** Greek writes its question mark as ";" (U+037E, which NFKC and most keyboards make U+003B). */
const GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/u;

/**
 * Whether a segment is a question: it ends in a question mark (Latin, fullwidth, Arabic, Greek U+037E,
 * Ethiopic), or it is Greek text ending in ";", the Greek question mark. Before the Greek case, "Ποια
 * χρονιά πέθανε ο Τέσλα;" wrapped in English instructions was not a question: the whole query, English
 * instructions included, was embedded, so a Greek question got dense features from its wrapper's words.
 */
export function isQuestion(segment: string): boolean {
  return QUESTION_END.test(segment) || (segment.endsWith(';') && GREEK.test(segment));
}

/**
 * Clause boundary inside a sentence, for coverage segments only (not for the question focus, where "For
 * Pfizer, which region …?" must stay one question): a comma after a word (not a digit, so "1,577" stays
 * whole). An instruction clause ("Using only the information available in the documents, answer …: {q}")
 * then gets its own segment factor. Chosen on the training rows of bench/fit-relevance.ts:
 * instruction-wrapped SciFact train claims with a relevant hit ≥ 0.3, over 5 183 abstracts 0.455 → 0.486
 * (plain 0.561 → 0.556), rel+100 0.625 → 0.675, rel+10 0.725 → 0.775; XQuAD equal or better.
 */
const CLAUSE = /(?<=[^\s\d]{2}[,，、])\s*/;

/** The query's sentences/clauses (BOUNDARY), trimmed, empty ones dropped. */
export function querySegments(query: string): string[] {
  return query.split(BOUNDARY).map((x) => x.trim()).filter(Boolean);
}

/** The question segments of a query, or null when it has a single segment or no question. */
export function questionFocus(query: string): string | null {
  const segments = querySegments(query);
  if (segments.length < 2) return null;
  const questions = segments.filter(isQuestion);
  return questions.length > 0 && questions.length < segments.length ? questions.join(' ') : null;
}

/**
 * The text the query embedding is made of: the question segment(s) when a query of several segments holds
 * a question (questionFocus), else the whole query. An agent's "Assume you are an analyst preparing a
 * briefing. <question>? Answer using the details in the provided documents." then gets the vector of its
 * question, not an average pulled toward the instruction's words — the dense side of the question focus
 * that BM25 already applies (FOCUS_OUTSIDE_WEIGHT). Measured on the TRAINING rows of bench/fit-relevance.ts
 * (shipped model unchanged; only wrapped XQuAD queries change, SciFact claims have no
 * question): a relevant hit ≥ 0.3 for XQuAD n=240 wrapped 0.815 → 0.833, n=10 wrapped equal, article
 * documents wrapped 0.965 → 0.960; log-loss of wrapped rows up (0.0115 → 0.0134 at n=240: all their scores
 * rise toward the plain question's).
 * @param query the user's query text
 * @returns the text to embed (a substring of the query's segments, joined by spaces)
 */
export function denseQueryText(query: string): string {
  return questionFocus(query) ?? query;
}

/**
 * Analyse a search query.
 * @param query      the user's query text
 * @param fallbackLang the namespace's dominant document language (or null): used to stem when detection
 *                   is unreliable (short queries such as "insulin resistance" are rarely detectable), and
 *                   its stems are added as alternatives when the query's language differs (a German
 *                   question wrapped in English instructions is detected as English, but the documents
 *                   were stemmed as German)
 * @returns detected language (null on low confidence), the stemming language used, terms, word groups,
 *          their weights and the groups of each segment
 * @throws Error when the language detector has not been initialised (analysis/analyzer.ts initAnalysis)
 */
export function analyseQuery(query: string, fallbackLang: string | null): AnalysedQuery {
  const focus = questionFocus(query);
  // The question decides the language when the query wraps it in instructions.
  const detected = detectLanguage(focus ?? query);
  const detectedLang = detected.reliable ? detected.code : null;
  const stemLang = detectedLang ?? fallbackLang;
  // By written word: a letter/digit compound and its parts ("FY2018" → fy2018, fy, 2018) are one word and
  // one group, so a chunk that writes "fiscal 2018" misses one query word, not three.
  const stemmed = analyzeWords(query, stemLang);
  // The same segmentation runs in every analysis, so the i-th words come from the same written word.
  const alternatives = [stemLang === null ? stemmed : analyzeWords(query, null)];
  if (fallbackLang && fallbackLang !== stemLang) alternatives.push(analyzeWords(query, fallbackLang));
  const paired = alternatives.every((a) => a.length === stemmed.length);
  // `stop`: the words a document's stored phrase pairs skip too (phraseSkipTerms), for pair ends; `drop`:
  // those and the query-only stopwords (queryStopTerms), which leave the query but break its phrases —
  // a document stores the pairs on both sides of such a word, not one across it.
  // Both are views over the memoised sets (no per-query copy: Spanish and English alone hold ≈ 1 000 terms).
  const stop = anyOf([stopTerms(stemLang), stopTerms(fallbackLang), stopTerms('en'), promptTerms()]);
  const drop = anyOf([queryStopTerms(stemLang), queryStopTerms(fallbackLang), queryStopTerms('en'), promptTerms()]);
  // One entry per distinct word (keyed by its stemmed term): its forms (the group: each analysis's own term),
  // the terms that end it in a document's pair sequence, its compound parts in every analysis (BM25 terms),
  // and its content parts in text order (the compound's own phrase).
  const words = new Map<string, { forms: string[]; tails: string[]; parts: string[]; inner: string[]; surface: string }>();
  stemmed.forEach((word, i) => {
    let w = words.get(word[0]);
    if (!w) words.set(word[0], (w = { forms: [], tails: [], parts: [], inner: word.slice(1).filter((x) => !stop.has(x)), surface: paired ? alternatives[0][i][0] : word[0] }));
    for (const f of paired ? [word, ...alternatives.map((a) => a[i])] : [word]) {
      if (!w.forms.includes(f[0])) w.forms.push(f[0]);
      // A document's stored pairs skip stopwords (pairHashSet), so a word ends in its last content term.
      let end = f[f.length - 1];
      for (let k = f.length - 1; k > 0 && stop.has(end); k--) end = f[k - 1];
      if (!w.tails.includes(end)) w.tails.push(end);
      for (const x of f.slice(1)) if (!w.parts.includes(x)) w.parts.push(x);
    }
  });
  let kept = [...words.values()];
  const content = kept.filter((w) => !w.forms.some((t) => drop.has(t)));
  if (content.length > 0) kept = content;
  const groups = kept.map((w) => w.forms);
  const parts = kept.map((w) => w.parts.filter((x) => !drop.has(x)));
  const terms = [...new Set([...groups.flat(), ...parts.flat()])];
  if (!paired) for (const t of alternatives.flat(2)) if (!terms.includes(t) && !drop.has(t)) terms.push(t);
  const inFocus = focus === null ? null : new Set(analyze(focus, stemLang));
  const weights = groups.map((g) => (inFocus === null || inFocus.has(g[0]) ? 1 : FOCUS_OUTSIDE_WEIGHT));
  const index = new Map(groups.map((g, i) => [g[0], i]));
  // Coverage segments: sentences, and clauses within them (CLAUSE), each analysed once; a sentence's groups
  // are the union of its clauses' (for the sentence drop), its phrase pairs the adjacent groups of its
  // clauses' sequences joined (a comma does not part a phrase's words in a document's stored pairs either).
  // Each clause is analysed once: its words' group indices as written (undefined = a stopword or prompt word,
  // null = a query-only stopword, which no phrase pair crosses).
  const markers = instructionMarkerTerms();
  const written = querySegments(query).map((s) => {
    const question = isQuestion(s);
    let instruction = false;
    const clauses = s.split(CLAUSE).map((c) => analyzeWords(c, stemLang).map((w): number | undefined | null => {
      if (!question && !instruction && w.some((t) => markers.has(t))) instruction = true;
      const g = index.get(w[0]);
      return g === undefined && !stop.has(w[0]) && drop.has(w[0]) ? null : g;
    }));
    return { question, instruction, clauses };
  });
  const isGroup = (i: number | undefined | null): i is number => i !== undefined && i !== null;
  const bySentence = written.map((s) => ({ question: s.question, instruction: s.instruction, clauses: s.clauses.map((c) => c.filter(isGroup)).filter((x) => x.length > 0) }));
  const segments = bySentence.flatMap((s) => s.clauses.map((c) => [...new Set(c)]));
  const sentences = bySentence.map((s) => ({ groups: [...new Set(s.clauses.flat())], question: s.question, instruction: s.instruction })).filter((x) => x.groups.length > 0);
  // A compound is also a phrase of its parts: the pair [a, a] (analyse "FY2023" as "FY 2023").
  const inner = kept.map((w) => w.inner);
  const pairs = [...phrasePairs(written.flatMap((s) => splitAtBreaks(s.clauses.flat()))), ...groups.flatMap((_, a) => (inner[a].length >= 2 ? [[a, a] as [number, number]] : []))];
  const pairTerms = pairs.map(([a, b]): Array<[string, string]> => {
    if (a === b) return inner[a].slice(1).map((y, k) => [inner[a][k], y]);
    return kept[a].tails.flatMap((x) => groups[b].map((y): [string, string] => [x, y]));
  });
  // Two adjacent words written as one ("Best Buy" / "BESTBUY", "data set" / "dataset"): the joined form is
  // a term of both words, so a chunk or title that writes it solid holds them (closedWordForms).
  // Only words adjacent as written join: the clauses' runs between stopwords.
  const runs = written.flatMap((s) => s.clauses.flatMap(runsOfGroups));
  for (const [a, b] of phrasePairs(runs).slice(0, MAX_CLOSED_PAIRS)) {
    for (const t of closedWordForms(kept[a].surface, kept[b].surface, stemLang)) {
      for (const g of [a, b]) if (!groups[g].includes(t)) groups[g].push(t);
      if (!terms.includes(t)) terms.push(t);
    }
  }
  // An English word's other forms are forms of it (analysis/english-forms.ts): derivational relatives
  // ("acquired" also matches "acquisition", "grow" matches "growth") and the other spelling ("tumour",
  // "tumor"), at the word's own BM25 weight. SciFact TRAIN (809 claims, 5 183 abstracts): a relevant hit
  // ≥ 0.3 for 0.573 → 0.588 of the claims, nDCG@10 0.7024 → 0.7039; XQuAD en training half and training
  // books equal (variants measured: docs/decisions/2026-11-28-english-forms.md).
  if (stemLang === 'en') {
    const own = new Set(groups.flat());
    const inTerms = new Set(terms); // one lookup per form: a pasted passage has ≈ 1 000 words
    groups.forEach((g) => {
      for (const t of relatedStems(g[0])) {
        if (own.has(t) || drop.has(t)) continue;
        g.push(t);
        if (!inTerms.has(t)) { inTerms.add(t); terms.push(t); }
      }
    });
  }
  return { detectedLang, stemLang, terms, groups, weights, segments, sentences, pairs, pairTerms, parts, termCount: groups.length };
}

/** Membership in any of `sets` (queryStopTerms ⊇ stopTerms, so `drop` ⊇ `stop`). */
function anyOf(sets: ReadonlyArray<ReadonlySet<string>>): { has(term: string): boolean } {
  return { has: (term) => sets.some((set) => set.has(term)) };
}

