// Stage 3c of retrieval: query-term coverage of every fused chunk — the share of the query's matchable
// content that the chunk holds, each query word weighted by its IDF within the candidate pool. It is an
// absolute feature: unlike "BM25 / best BM25" it does not fall for a second relevant passage
// because a first one exists, and it does not depend on the namespace's size or the query's length.
//   df(w)   candidates (vector ∪ BM25 lists, ≤ 200) holding any term of word w's group
//   idf(w)  ln(1 + (P − df + 0.5) / (df + 0.5)), P = pool size (the BM25 IDF of Robertson–Spärck Jones
//           with +1 as in Lucene, computed over the pool; for namespaces whose matches all fit in the
//           pool it is the namespace's own IDF), PLUS the same formula over the pool's documents
//           (D documents with a candidate, df_D of them with a candidate holding w): two levels, because a
//           word can tell documents apart ("3M", "2018") or passages of one document ("expenditure"), and
//           retrieval fills the pool with the chunks of the documents that hold the first kind, so at the
//           chunk level alone the company a question names weighs least (addDocumentIdf)
//   coverage(c) = Σ_{w ∈ c} q(w)·idf(w) / Σ_{w : df(w) > 0} q(w)·idf(w)
//   q(w)    the word's query weight (analyze-query.ts: 1, less for words only outside the question)
// Words no candidate holds (instruction filler of a verbose question, a word in another language) are
// left out of the denominator: they cannot be matched by any hit, so they must not lower every score.
// Segment matchability: in a query of several sentences/clauses, a segment whose words no single candidate
// holds together ("Assume you are an analyst preparing a briefing.") is instruction, not information need.
// Each segment s gets m(s) = max_c Σ_{w ∈ s ∩ c} idf(w) — the IDF mass one candidate holds of it, in
// absolute terms, because common instruction words ("using", "information", "available") co-occur by
// chance while the specific words of the information need co-occur because a passage is about them —
// divided by the best segment's m and raised to γ = SEGMENT_SHARPNESS; a word's q(w) is multiplied by the
// highest such factor of its segments. A word outside the best segment is further multiplied by its word
// matchability (the query mass of the best candidate holding it over the best candidate's mass, to γ).
// Sentence drop (SENTENCE_DROP): in a query of several sentences, a sentence that is not a question and
// matches far below the best sentence weighs 0 — an instruction sentence leaves the denominator entirely.
// A sentence marked as an instruction by its words (analyze-query.ts: "answer", "question", "assistant", …)
// weighs 0 and does not set that bar, when another sentence is not one and matches well enough
// (instructionDrop); segment factors are then weighed among the kept words only.
// Title coverage (`titleCoverage`): the same weighted share of the query, held by the chunk's document title.
// Phrase-pair coverage (`pairCoverage` / `pairCoverageInPool`, the `pair_cov` / `pair_cov_pool` features):
// the share of the query's phrase pairs (analyze-query.ts `pairs`: adjacent content words of a sentence)
// that the chunk holds adjacent — its stored pair hashes (analysis/term-hash.ts pairHashSet) hold one of
// the pair's term combinations. Counted are pairs whose two words are both matchable, each weighing the
// lesser query weight × segment factor of its words (an instruction sentence's pairs weigh as its words
// do); `pair_cov` divides by all of them, `pair_cov_pool` by those that at least one candidate holds (as
// coverage leaves out words no candidate holds: a pair no passage holds adjacent, such as the last word of
// one phrase and the first of the next, is rarely a phrase). A query without counted pairs gives every
// chunk its `coverage` for both (a lone word is all the phrase there is); a chunk that stores no pair
// hashes (written before they existed) gets null when the query has pairs: unknown, not absent. Like the
// matchable words, the pool's pairs are set by what any candidate holds, never by the best hit's score.
// Proximity evidence after term-dependence models (Metzler & Croft, "A Markov random field model for term
// dependencies", SIGIR 2005: the ordered-window #1 feature of adjacent query terms).
// All of these re-weight words, the same for every hit, so they never lower one hit because another matched
// better; a one-segment query is weighted as before. The matchable query length (BM25's divisor in
// score.ts) uses the same weights.
// Cost: a binary search per query term in each candidate's stored term hashes (group-match.ts hashMatcher), O(P · terms ·
// log distinct terms); rows without stored hashes: one pass over their analysed term string (termMatcher,
// no allocation per term), O(their characters). Phrase pairs: a binary search per (pair, term combination)
// in each candidate's stored pair hashes, O(P · pairs · combinations · log distinct pairs), combinations ≤ 9.
import { hashMatcher, termMatcher } from './group-match.ts';
import { pairHoldings, pairShares } from './phrase-pairs.ts';
import type { FusedChunk } from '../types.ts';
import type { QuerySentence } from './analyze-query.ts';

/**
 * Exponent γ on a segment's relative matchability m(s)/max m: 1 keeps it linear, higher values push
 * instruction segments (that co-occur by chance) further toward 0. Chosen on the TRAINING rows of
 * bench/fit-relevance.ts: with γ = 2 (segments and words) instruction-wrapped SciFact train
 * claims over 5 183 abstracts have a relevant hit ≥ 0.3 for 0.50 of queries (γ = 1: 0.445; segments
 * only, γ = 1: 0.40) and plain ones 0.60 (0.59, 0.57), with lower log-loss on every kind of data.
 */
export const SEGMENT_SHARPNESS = 2;
/** The same exponent for word matchability (wordMatchability), chosen with it. */
const WORD_SHARPNESS = 2;

/**
 * Sentence drop: in a query of several sentences, the words of a sentence that is not a question and whose
 * matchability is below this share of the best sentence's, (m(S)/max m)^γ < SENTENCE_DROP, weigh 0 — an
 * instruction sentence ("Give a short answer and cite where it comes from.") leaves coverage and the
 * matchable length entirely instead of keeping a small weight. Clause segments and single-sentence queries
 * are not affected (plain questions and claims keep their scores); a question sentence is never dropped.
 * Chosen on the TRAINING rows of bench/fit-relevance.ts: instruction-wrapped
 * SciFact train claims over 5 183 abstracts with a relevant hit ≥ 0.3, 0.486 without the drop → 0.498
 * (0.25), 0.506 (0.5), 0.512 (0.75), 0.516 (0.99); plain 0.556 → 0.555; XQuAD kinds within one query. 0.75
 * rather than "the best sentence only" (0.99, one query better) so that a second sentence of a real need
 * that matches nearly as well as the first still counts.
 */
export const SENTENCE_DROP = 0.75;

/**
 * Least candidates with stored terms for a pool of one document whose every matched word all of them hold to
 * count as degenerate (withCoverage: coverage 0 for all). Fewer candidates (a one-chunk document in
 * searchInDoc) may all hold the query's words because each answers it; the bound is the one a named scope
 * needs (standard-rank.ts MIN_SCOPE_CANDIDATES). Only a pool of one document: there the words every chunk
 * holds are its label's. Among several documents (ten XQuAD paragraphs of one article, each labelled with
 * its title) the rule cost a question each in Arabic and Chinese over 10 paragraphs (0.99 → 0.98).
 */
export const DEGENERATE_POOL = 5;

/**
 * Set `coverage` on each fused chunk (null when the engine returned no `tokens` for it).
 * @param fused  fused chunks (fuse.ts), not modified
 * @param groups query word groups (analyze-query.ts): alternatives of one word
 * @param weights query weight per group (default 1 each)
 * @param segments group indices of each query segment (analyze-query.ts); fewer than 2 = no segment weighting
 * @param sentences the query's sentences (analyze-query.ts), for the sentence drop; fewer than 2 = none
 * @param titles    doc_id → the document title's analysed terms, space-separated (stages/title-terms.ts);
 *                  sets `titleCoverage` (the title's share of the same weighted query mass) on the chunks
 *                  of those documents, null on others
 * @param pairs     the query's phrase pairs (analyze-query.ts `pairs`, group indices); sets `pairCoverage` and
 *                  `pairCoverageInPool` (file header; null on chunks that store no pair hashes)
 * @param pairTerms per pair, the stored term pairs that hold it (analyze-query.ts `pairTerms`); default
 *                  every combination of the two groups' terms
 * @returns new FusedChunk objects in the same order, the summed query weight of the words that occur
 *          in the pool at all (the "matchable" query length), the documents the query names
 *          (namedDocuments; null when it names none), and per word group whether coverage counts it
 *          (false: a dropped instruction sentence's word, or a segment no candidate matches)
 */
export function withCoverage(fused: FusedChunk[], groups: string[][], weights: number[] = [], segments: number[][] = [], sentences: QuerySentence[] = [], titles?: ReadonlyMap<string, string>, pairs: Array<[number, number]> = [], pairTerms?: Array<Array<[string, string]>>): { fused: FusedChunk[]; matchable: number; named: Set<string> | null; counted: boolean[] } {
  // Which groups each candidate holds: a lookup of each query term in its stored term hashes, or (rows
  // written before those were stored) one pass over its stored term string (termMatcher).
  let holds: ((tokens: string, h: boolean[]) => void) | undefined; // built only for rows without hashes
  const hashed = hashMatcher(groups);
  const has: Array<boolean[] | null> = fused.map((f) => {
    if (f.termHashes === null && f.tokens === null) return null;
    const h = new Array<boolean>(groups.length).fill(false);
    if (f.termHashes !== null) hashed(f.termHashes, h);
    else (holds ??= termMatcher(groups))(f.tokens!, h);
    return h;
  });
  // Per document, which words the union of its candidates holds (a long document's chunks each hold part of
  // a question; the document as a whole may hold all of it): document-level IDF and doc_cov read it.
  const docHas = new Map<string, boolean[]>();
  for (let i = 0; i < fused.length; i++) {
    const h = has[i];
    if (!h) continue;
    const docId = fused[i].chunk.doc_id;
    let d = docHas.get(docId);
    if (!d) docHas.set(docId, (d = new Array<boolean>(groups.length).fill(false)));
    for (let w = 0; w < h.length; w++) if (h[w]) d[w] = true;
  }
  const P = fused.length;
  const dfs = groups.map((_, w) => {
    let df = 0;
    for (let i = 0; i < has.length; i++) if (has[i]?.[w]) df++;
    return df;
  });
  const rawIdf = dfs.map((df) => (df === 0 ? 0 : Math.log(1 + (P - df + 0.5) / (df + 0.5))));
  addDocumentIdf(rawIdf, [...docHas.values()], new Set(fused.map((f) => f.chunk.doc_id)).size);
  const kept = sentenceKept(has, rawIdf, sentences);
  // Segments are weighed among the words the sentence drop keeps (a dropped instruction does not set the bar).
  const seg = segmentWeights(has, rawIdf, segments.map((g) => g.filter((w) => kept[w])).filter((g) => g.length > 0));
  const word = wordMatchability(has, rawIdf.map((x, w) => x * (weights[w] ?? 1)));
  // Words of the best-matched segment (and every word of a one-segment query) keep factor 1: the word
  // factor only sharpens the weighting of words outside the information need's segment.
  const segWeight = seg.map((x, w) => (!kept[w] ? 0 : x >= 1 ? 1 : x * word[w]));
  const idf = rawIdf.map((x, w) => x * (weights[w] ?? 1) * segWeight[w]);
  // A pool of one document in which every matched word is held by every candidate (a short filing that
  // writes only the company's name, which its label puts in every chunk) tells its passages apart by
  // nothing: none of them covers any of the query's need (DEGENERATE_POOL).
  const withTerms = has.reduce((n, h) => n + (h ? 1 : 0), 0);
  const degenerate = docHas.size === 1 && withTerms >= DEGENERATE_POOL && idf.every((x, w) => x === 0 || dfs[w] === withTerms);
  const total = degenerate ? 0 : idf.reduce((s, x) => s + x, 0);
  // The matchable query length counts each word with its query weight and its segment factor, so that
  // an instruction sentence wrapped around a question does not lengthen the query that BM25 is divided by.
  const matchable = idf.reduce((s, x, w) => s + (x > 0 ? (weights[w] ?? 1) * segWeight[w] : 0), 0);
  const massOf = (h: boolean[]) => {
    let m = 0;
    for (let w = 0; w < h.length; w++) if (h[w]) m += idf[w];
    return m;
  };
  const docMass = new Map([...docHas].map(([d, h]) => [d, massOf(h)]));
  const titleMass = new Map<string, number>();
  const titleHas = new Map<string, boolean[]>();
  if (titles) {
    const scan = (holds ??= termMatcher(groups));
    for (const [d, terms] of titles) {
      const h = new Array<boolean>(groups.length).fill(false);
      scan(terms, h);
      titleHas.set(d, h);
      titleMass.set(d, massOf(h));
    }
  }
  const shares = pairShares(pairs, rawIdf, (w) => (weights[w] ?? 1) * segWeight[w], pairHoldings(groups, pairs, fused, (w) => rawIdf[w] > 0, pairTerms));
  const out = fused.map((f, i) => {
    const h = has[i];
    if (!h) return { ...f, coverage: null, docCoverage: null, coverageInDoc: null, pairCoverage: null, pairCoverageInPool: null };
    const got = massOf(h);
    const dm = docMass.get(f.chunk.doc_id) ?? 0;
    const tm = titleMass.get(f.chunk.doc_id);
    const coverage = total > 0 ? got / total : 0;
    const pair = shares === null ? { all: coverage, inPool: coverage } : shares[i];
    return { ...f, coverage, docCoverage: total > 0 ? dm / total : 0, coverageInDoc: dm > 0 ? got / dm : 0, titleCoverage: tm === undefined ? null : total > 0 ? tm / total : 0, pairCoverage: pair?.all ?? null, pairCoverageInPool: pair?.inPool ?? null };
  });
  return { fused: out, matchable, named: namedDocuments(docHas, titleHas, idf), counted: segWeight.map((x) => x > 0) };
}

/**
 * The documents a query names: for a query word that some pool documents' labels hold (title, file name;
 * title-terms.ts) and that no other pool document holds anywhere, those documents; over several such
 * words, the documents every one of them names. "What was MGM's interest coverage ratio …" over ten
 * filings names MGM's release: "mgm" is in its label, and no other filing writes it. Null when no word
 * names a proper subset of the pool's documents (one document, or a word every label holds), or when the
 * words name no document together.
 * Cost: O(documents · words) over the pool's documents.
 * @param docHas   doc_id → which query words the union of its candidates holds (labels are indexed with
 *                 every chunk, chunk-rows.ts, so a label word is held by all of its document's candidates)
 * @param titleHas doc_id → which query words its label holds
 * @param weight   per query word, its weight (0 = not counted: unmatched, or in a dropped instruction)
 */
export function namedDocuments(docHas: ReadonlyMap<string, boolean[]>, titleHas: ReadonlyMap<string, boolean[]>, weight: number[]): Set<string> | null {
  const docs = [...docHas.keys()];
  if (docs.length < 2 || titleHas.size === 0) return null;
  let named: Set<string> | null = null;
  for (let w = 0; w < weight.length; w++) {
    if (!(weight[w] > 0)) continue;
    const labelled = docs.filter((d) => titleHas.get(d)?.[w] === true);
    if (labelled.length === 0 || labelled.length === docs.length) continue;
    if (docs.some((d) => docHas.get(d)![w] && titleHas.get(d)?.[w] !== true)) continue;
    named = named === null ? new Set(labelled) : new Set(labelled.filter((d) => named!.has(d)));
  }
  return named !== null && named.size > 0 ? named : null;
}

/**
 * Per-word factor from word matchability: the query IDF mass held by the best candidate that holds word
 * w, divided by the mass the best candidate holds at all, to the power SEGMENT_SHARPNESS. A content word
 * of the information need sits in a passage with the need's other words (factor ≈ 1); an instruction word
 * ("knowledge", "report", "passage") sits only in passages that hold little else of the query. Words no
 * candidate holds keep 1 (they are out of the denominator anyway).
 * @param has   per candidate, which query words it holds (null = no stored terms)
 * @param mass  per word, its weighted IDF
 * @returns per word, a factor in (0, 1]
 */
function wordMatchability(has: Array<boolean[] | null>, mass: number[]): number[] {
  const best = mass.map(() => 0);
  let top = 0;
  for (let i = 0; i < has.length; i++) {
    const h = has[i];
    if (!h) continue;
    let got = 0;
    for (let w = 0; w < h.length; w++) if (h[w]) got += mass[w];
    if (got > top) top = got;
    for (let w = 0; w < h.length; w++) if (h[w] && got > best[w]) best[w] = got;
  }
  return best.map((b) => (top > 0 && b > 0 ? (b / top) ** WORD_SHARPNESS : 1));
}

/**
 * Per-word factor from segment matchability (file header): 1 for every word when there are fewer than
 * two segments or nothing matched; words in no segment keep 1.
 */
function segmentWeights(has: Array<boolean[] | null>, idf: number[], segments: number[][]): number[] {
  const out = idf.map(() => 1);
  if (segments.length < 2) return out;
  const m = segments.map((seg) => segmentMass(has, idf, seg));
  const top = Math.max(...m);
  if (top <= 0) return out;
  const inSome = idf.map(() => 0);
  const seen = idf.map(() => false);
  segments.forEach((seg, i) => { for (const w of seg) { seen[w] = true; inSome[w] = Math.max(inSome[w], (m[i] / top) ** SEGMENT_SHARPNESS); } });
  return out.map((x, w) => (seen[w] ? inSome[w] : x));
}

/**
 * Per word, whether it survives the sentence drop (SENTENCE_DROP): false when every sentence holding it is
 * not a question and matches below the threshold; true for every word of a one-sentence query, when
 * nothing matched, and for words in no sentence.
 */
function sentenceKept(has: Array<boolean[] | null>, idf: number[], sentences: QuerySentence[]): boolean[] {
  const out = idf.map(() => true);
  if (sentences.length < 2) return out;
  const m = sentences.map((st) => segmentMass(has, idf, st.groups));
  const drop = instructionDrop(sentences, m);
  const top = Math.max(...m.filter((_, i) => !drop[i]));
  if (top <= 0) return out;
  const seen = idf.map(() => false);
  const keep = idf.map(() => false);
  sentences.forEach((st, i) => {
    const kept = !drop[i] && (st.question || (m[i] / top) ** SEGMENT_SHARPNESS >= SENTENCE_DROP);
    for (const w of st.groups) { seen[w] = true; if (kept) keep[w] = true; }
  });
  return out.map((x, w) => (seen[w] ? keep[w] : x));
}

/**
 * Instruction guard: instruction sentences are dropped only when the best sentence that is not one matches at
 * least this share of the best instruction sentence (m = segmentMass). A prior, not fitted: it keeps a need
 * that shares its sentence with an instruction word ("… does not require VPS9a Give a short answer and cite
 * where it comes from.", a claim written without its full stop) when what is left is a bare instruction
 * ("Please look through the provided documents and tell me:", whose words few candidates hold together), and
 * lets through a short claim whose words every candidate holds (low pool IDF, so its m is well below the
 * instruction's).
 */
const INSTRUCTION_GUARD = 0.25;

/**
 * Which sentences are dropped as instructions: every instruction sentence
 * (analyze-query.ts QuerySentence.instruction), when the query has a sentence that is not one and the best
 * such sentence passes the guard. Pool IDF makes a wrapped claim's instruction look specific: the pool was
 * retrieved for the claim's words, so they are common in it and the instruction's ("information",
 * "available", "precisely") rare; by matchability alone the instruction was the best sentence and the claim
 * was dropped (SciFact test over 1 000 abstracts: 3 of the 6 verbose claims lost to the plain form).
 * @param sentences the query's sentences
 * @param m         per sentence, its matchability (segmentMass)
 * @returns per sentence, whether it is dropped as an instruction
 */
function instructionDrop(sentences: QuerySentence[], m: number[]): boolean[] {
  const none = sentences.map(() => false);
  let need = -1, instr = -1;
  sentences.forEach((st, i) => { if (st.instruction === true) instr = Math.max(instr, m[i]); else need = Math.max(need, m[i]); });
  if (need < 0 || instr < 0 || need <= 0 || need < INSTRUCTION_GUARD * instr) return none;
  return sentences.map((st) => st.instruction === true);
}

/** m(s): the most IDF mass of the segment's words that a single candidate holds. */
function segmentMass(has: Array<boolean[] | null>, idf: number[], seg: number[]): number {
  let best = 0;
  for (let i = 0; i < has.length; i++) {
    const h = has[i];
    if (!h) continue;
    let got = 0;
    for (let k = 0; k < seg.length; k++) if (h[seg[k]]) got += idf[seg[k]];
    if (got > best) best = got;
  }
  return best;
}

/**
 * Add the document-level IDF to each matched word's chunk-level pool IDF (in place): ln(1 + (D − d + 0.5)
 * / (d + 0.5)) with D the documents that have a candidate and d those with a candidate holding the word.
 * When every document has one candidate (SciFact abstracts, XQuAD paragraphs) it equals the chunk-level
 * IDF, so every weight doubles and coverage (a ratio) is unchanged; with one document (searchInDoc) it adds
 * the same 0.29 to every matched word. Chosen on the training rows of bench/fit-relevance.ts (with
 * clause segments, analyze-query.ts): share of queries with a relevant hit ≥ 0.3 equal or better on
 * every kind of data but plain SciFact over 5 183 abstracts (0.561 → 0.556), XQuAD article documents
 * 0.958 → 0.963 (plain) and 0.969 → 0.975 (wrapped).
 * @param idf     per word, chunk-level pool IDF (0 = no candidate holds it; left 0)
 * @param docHas  per document with stored terms, which words the union of its candidates holds
 * @param D       documents with a candidate (with or without stored terms)
 */
function addDocumentIdf(idf: number[], docHas: boolean[][], D: number): void {
  idf.forEach((x, w) => {
    if (x === 0) return;
    const d = docHas.reduce((n, h) => n + (h[w] ? 1 : 0), 0);
    idf[w] = x + Math.log(1 + (D - d + 0.5) / (d + 0.5));
  });
}
