// Snowball stemmers per language (DESIGN.md §4), from the `snowball-stemmers` package (a JS port of the
// Snowball algorithms), and for the languages that port lacks (Greek, Hindi, Ukrainian, Indonesian/Malay,
// Lithuanian, Nepali, Serbian/Croatian/Bosnian, Bulgarian) from `@orama/stemmers` (Orama's builds of the
// Snowball algorithms, and its port of Lucene's Bulgarian stemmer). Maps ISO 639-1 codes to algorithm names
// and memoises stems, because the same words recur constantly and the ported stemmers allocate on every call. Words longer than MAX_STEM_LENGTH
// are not stemmed, which bounds the cost of stemmers that are not linear in the word (Ukrainian's regexps).
import { createRequire } from 'node:module';
import { stemmer as bulgarianStemmer } from '@orama/stemmers/bulgarian';
import { stemmer as greekStemmer } from '@orama/stemmers/greek';
import { stemmer as hindiStemmer } from '@orama/stemmers/indian';
import { stemmer as indonesianStemmer } from '@orama/stemmers/indonesian';
import { stemmer as lithuanianStemmer } from '@orama/stemmers/lithuanian';
import { stemmer as nepaliStemmer } from '@orama/stemmers/nepali';
import { stemmer as serbianStemmer } from '@orama/stemmers/serbian';
import { stemmer as ukrainianStemmer } from '@orama/stemmers/ukrainian';

interface SnowballStemmer {
  stem(word: string): string;
}
interface SnowballFactory {
  newStemmer(algorithm: string): SnowballStemmer;
  algorithms(): string[];
}

// The package is CommonJS without type declarations; load it through require and type it here.
const snowball = createRequire(import.meta.url)('snowball-stemmers') as SnowballFactory;

/** ISO 639-1 code -> Snowball algorithm name, for every algorithm the package ships (except 'porter'). */
const ALGORITHM_BY_LANG: Readonly<Record<string, string>> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  cs: 'czech',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  hu: 'hungarian',
  it: 'italian',
  ga: 'irish',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  es: 'spanish',
  sl: 'slovene',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
};

/**
 * Languages the `snowball-stemmers` port lacks, stemmed by `@orama/stemmers`.
 * - Greek and Hindi: without them that text was only lower-cased and folded, so
 *   "δάσους" never met "δάσος" and "लड़कों" never met "लड़का". XQuAD long documents of the training half
 *   (bench:answers --sets books) answered 0.84 (el) and 0.90 (hi) of questions over the namespace, against
 *   0.93–0.99 for the stemmed languages; with them 0.93 and 0.97.
 * - Ukrainian, Indonesian, Lithuanian, Nepali and Serbian: languages the detector
 *   (language-detect.ts, eld) reports that had no stemmer although Snowball has one. No evaluation set here
 *   holds them; the Greek and Hindi measurements are the evidence for the same gap.
 * - Bulgarian: Orama's port of Lucene's BulgarianStemmer (Nakov's light stemmer,
 *   not Snowball) rewrites letters of its argument in place, as the Java original does with its char[];
 *   given a JS string it throws for every word whose ending it rewrites ("потери", "учениците"), so it
 *   gets a character array (charArrayStem); without the stemmer Bulgarian is only lower-cased and folded.
 *   Malay (`ms`, which eld reports for most Indonesian text) uses the Indonesian algorithm, whose prefixes
 *   and suffixes are those of the shared standard language; Croatian and Bosnian (`hr`, `bs`; eld reports
 *   `hr` for Latin-script Serbian) use the Serbian one, which reads both scripts and maps Cyrillic to Latin.
 * Documents indexed before keep their unstemmed terms; a query's unstemmed forms still match them
 * (analyze-query.ts adds them as alternatives), and re-ingesting gives them the stemmed ones.
 */
const EXTRA_STEMMERS: Readonly<Record<string, StemFn>> = {
  el: greekStemmer,
  hi: hindiStemmer,
  uk: ukrainianStemmer,
  id: indonesianStemmer,
  ms: indonesianStemmer,
  lt: lithuanianStemmer,
  ne: nepaliStemmer,
  sr: serbianStemmer,
  hr: serbianStemmer,
  bs: serbianStemmer,
  bg: charArrayStem(bulgarianStemmer),
};

/**
 * Longest word (UTF-16 code units) that is stemmed; longer ones are kept as they are. No dictionary word of
 * these languages comes near it (the longest German or Finnish compounds in common use are ≈ 40 letters),
 * and it bounds the stemmers' cost: Orama's Ukrainian stemmer is quadratic in the word (measured here:
 * a 16 000-letter run 130 ms, 64 letters < 0.01 ms).
 */
export const MAX_STEM_LENGTH = 64;

/**
 * A third-party stemmer that can never fail a search or an ingest: a word it throws on (or maps to something
 * other than a string) is kept as it is. An empty stem is handled for every stemmer in stemmerFor.
 */
function guarded(stem: StemFn): StemFn {
  return (word) => {
    try {
      const s = stem(word);
      return typeof s === 'string' ? s : word;
    } catch {
      return word;
    }
  };
}

/**
 * A stemmer that edits its argument as a character array (ports of Lucene stemmers, which work on a char[] in
 * place) called with one: the word's code points in an array that also answers `substring`, the one string
 * method such a port calls on it. Each call gets its own array, so nothing is shared between words.
 * @param stem the port's stem function (typed for strings, called here with the array)
 * @returns a StemFn over ordinary strings
 */
function charArrayStem(stem: (word: string) => string): StemFn {
  return (word) => {
    const chars = Array.from(word) as string[] & { substring?: (from: number, to?: number) => string };
    chars.substring = (from, to) => chars.slice(from, to).join('');
    return stem(chars as unknown as string);
  };
}

/** Upper bound on memoised stems per language; the memo is cleared (not LRU) when it fills up. */
const MEMO_LIMIT = 200_000;

export type StemFn = (word: string) => string;

const stemmers = new Map<string, StemFn | null>();

/** ISO 639-1 codes that have a Snowball stemmer. */
export function stemmedLanguages(): string[] {
  return [...Object.keys(ALGORITHM_BY_LANG), ...Object.keys(EXTRA_STEMMERS)];
}

/**
 * Memoised Snowball stemmer for an ISO 639-1 code (region subtags such as 'pt-BR' are ignored), or null
 * when the language has none (e.g. 'zh', 'th', 'vi') or `lang` is null. The stemmer expects lowercased
 * input with its accents intact, so call it before accent folding.
 */
export function stemmerFor(lang: string | null): StemFn | null {
  if (!lang) return null;
  const key = lang.toLowerCase().split(/[-_]/)[0];
  const cached = stemmers.get(key);
  if (cached !== undefined) return cached;
  const algorithm = ALGORITHM_BY_LANG[key];
  const extra = EXTRA_STEMMERS[key];
  let fn: StemFn | null = null;
  if (algorithm || extra) {
    const stemmer = algorithm ? snowball.newStemmer(algorithm) : { stem: guarded(extra) };
    const memo = new Map<string, string>();
    fn = (word: string): string => {
      if (word.length > MAX_STEM_LENGTH) return word;
      let s = memo.get(word);
      if (s === undefined) {
        // A stemmer that strips a whole word ('' from some Arabic, Czech and Irish inputs) would drop it.
        s = stemmer.stem(word) || word;
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(word, s);
      }
      return s;
    };
  }
  stemmers.set(key, fn);
  return fn;
}
