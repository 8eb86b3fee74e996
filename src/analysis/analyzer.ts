// Lexical analysis shared by ingest and query (DESIGN.md §4): language detection, Unicode word
// segmentation, lowercasing, accent folding, Snowball stemming, CJK bigrams. The same function must run
// on both sides, or BM25 silently stops matching.
import { detect, loadDetector, type DetectedLanguage } from './language-detect.ts';
import { foldAccents, normaliseApostrophe, pushBigrams, segmentKind, splitPieces } from './segment.ts';
import { stemmerFor } from './stemmers.ts';

/** The language a text was detected as (defined beside the detector, re-exported for analyzer's callers). */
export type { DetectedLanguage };

/**
 * Load the language-identification data (eld 'medium', ≈0.4 s, ≈150 MB). Call once at process start
 * (main, workers, tests that detect languages) and await it before the first detectLanguage(); calling it
 * again is free. analyze() does not need it.
 */
export function initAnalysis(): Promise<void> {
  return loadDetector();
}

/**
 * Detect the language of `text`. Text with fewer than ~12 letters (CJK characters count 3), text eld
 * scores as unreliable, and text in no supported language give code null / bcp47 'und'. Chinese,
 * Japanese and Korean are decided by script share; everything else by eld's n-gram scores. Long text is
 * sampled (3 000 chars from start, middle and end), so the cost is bounded (≈0.2 ms for a 1 500-char abstract, ≈0.4 ms at most).
 * @throws Error when initAnalysis() has not resolved yet.
 */
export function detectLanguage(text: string): DetectedLanguage {
  return detect(text);
}

/**
 * Version of what analyze() makes of a text. Index tables record it (storage/index-build.ts), so a namespace
 * analysed by an earlier version is reported as needing a reindex: raise it whenever the tokens of some
 * text change (segmentation, stemming, stop words, compound splitting, folding).
 */
export const ANALYSER_VERSION = 1;

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
const LETTERS_OR_DIGITS = /\p{L}+|\p{Nd}+/gu;
const MIXED = /\p{L}/u;

/**
 * Word-delimiter split of letter/digit compounds (as Lucene's WordDelimiterGraphFilter with
 * splitOnNumerics and preserveOriginal): after "fy2018" also "fy" and "2018", after "covid19" also "covid"
 * and "19", so "FY2018" matches a table headed "2018". Only when every part has at least 2 characters
 * ("q2", "10k", "b2b" stay whole: their parts would be noise). A compound the segmenter kept whole across
 * an apostrophe or underscore is first cut there (joinedParts).
 * @returns the parts, or null when the term is not split
 */
function alnumParts(term: string): string[] | null {
  if (!MIXED.test(term) || !/\p{Nd}/u.test(term)) return null;
  if (JOINER.test(term)) return joinedParts(term);
  const parts = term.match(LETTERS_OR_DIGITS);
  if (!parts || parts.length < 2 || parts.join('') !== term || parts.some((p) => p.length < 2)) return null;
  return parts;
}
const HAS_LETTER = /\p{L}/u;
/** Characters the word segmenter keeps inside a word between letters and digits: apostrophe, underscore. */
const JOINER = /['_]/u;
const JOINERS = /['_]+/u;

/**
 * Parts of a letter/digit compound that the segmenter kept whole across an apostrophe or underscore
 * ("Q2'2023", "FY'24", "pfizer_2023q2_10q"): its pieces between joiners of two characters or more, each
 * followed by its own letter/digit parts (alnumParts), so "Q2'2023" also matches "Q2" and "2023".
 * @returns the parts in order, or null when fewer than two pieces qualify
 */
function joinedParts(term: string): string[] | null {
  const pieces = term.split(JOINERS).filter((p) => p.length >= 2);
  if (pieces.length < 2) return null;
  const out: string[] = [];
  for (const p of pieces) {
    out.push(p);
    const sub = alnumParts(p); // a piece holds no joiner: the plain letter/digit split
    if (sub) out.push(...sub);
  }
  return out;
}

/**
 * Analyse text into index terms.
 * Steps: NFKC; Intl.Segmenter word segmentation in pieces of ≤2 000 chars; lowercase; for ordinary
 * words Snowball stemming for `lang` (before folding, since stemmers expect accents) then accent folding
 * of Latin/Greek/Cyrillic letters; runs of Han/Kana become overlapping character bigrams (a lone
 * character stays a unigram); Korean words become character bigrams; letter/digit compounds also yield
 * their parts (alnumParts). Numbers are kept; no stopwords are
 * removed (BM25's IDF handles them). Terms never contain whitespace.
 * @param lang ISO 639-1 code selecting the stemmer; null = no stemming (language-neutral folding only).
 * @returns terms in text order (duplicates kept, so BM25 term frequency is right).
 */
export function analyze(text: string, lang: string | null): string[] {
  const out: string[] = [];
  walkTerms(text, lang, (term) => out.push(term));
  return out;
}

/**
 * The same analysis as analyze(), by written word: each word's terms, its own term first and then the
 * parts of a letter/digit compound ("FY2018" → ["fy2018", "fy", "2018"]); a CJK or Korean bigram is a word
 * of one term. analyze(text, lang) equals analyzeWords(text, lang).flat(). The query side reads it so a
 * compound counts as one query word (search/stages/analyze-query.ts).
 * @param lang as analyze()
 * @returns one array per word, in text order
 */
export function analyzeWords(text: string, lang: string | null): string[][] {
  const out: string[][] = [];
  walkTerms(text, lang, (term, part) => {
    if (part && out.length) out[out.length - 1].push(term);
    else out.push([term]);
  });
  return out;
}

/** The analysis loop behind analyze() and analyzeWords(): emits each term, `part` = a compound's part. */
function walkTerms(text: string, lang: string | null, emit: (term: string, part: boolean) => void): void {
  if (!text) return;
  const stem = stemmerFor(lang);
  const bigrams: string[] = [];
  const flush = (chars: string[]) => {
    bigrams.length = 0;
    pushBigrams(chars, bigrams);
    for (const t of bigrams) emit(t, false);
  };
  for (const piece of splitPieces(text)) {
    const normal = piece.normalize('NFKC');
    let run: string[] = []; // pending Han/Kana characters
    let runEnd = -1;
    for (const seg of segmenter.segment(normal)) {
      if (!seg.isWordLike) continue;
      const word = seg.segment.toLowerCase();
      const kind = segmentKind(word);
      if (kind === 'cjk') {
        if (seg.index !== runEnd && run.length) {
          flush(run);
          run = [];
        }
        for (const ch of word) run.push(ch);
        runEnd = seg.index + seg.segment.length;
        continue;
      }
      if (run.length) {
        flush(run);
        run = [];
      }
      if (kind === 'hangul') {
        flush(Array.from(word));
        continue;
      }
      let term = normaliseApostrophe(word);
      if (stem && HAS_LETTER.test(term)) term = stem(term);
      term = foldAccents(term);
      if (term) {
        emit(term, false);
        const parts = alnumParts(term);
        if (parts) for (const p of parts) emit(p, true);
      }
    }
    if (run.length) flush(run);
  }
}
