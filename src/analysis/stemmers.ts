// Snowball stemmers per language (DESIGN.md §4), from the `snowball-stemmers` package (a JS port of the
// Snowball algorithms), and for Greek and Hindi, which that port lacks, from `@orama/stemmers` (Orama's
// build of the Snowball Greek and Hindi algorithms). Maps ISO 639-1 codes to algorithm names and memoises
// stems, because the same words recur constantly and the ported stemmers allocate on every call.
import { createRequire } from 'node:module';
import { stemmer as greekStemmer } from '@orama/stemmers/greek';
import { stemmer as hindiStemmer } from '@orama/stemmers/indian';

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
 * Languages the `snowball-stemmers` port lacks, stemmed by `@orama/stemmers` (seventeenth session). Without
 * them Greek and Hindi text was only lower-cased and folded, so "δάσους" never met "δάσος" and "लड़कों"
 * never met "लड़का": XQuAD long documents of the training half (bench:answers --sets books) answered
 * 0.84 (el) and 0.90 (hi) of questions over the namespace, against 0.93–0.99 for the stemmed languages.
 * Documents indexed before keep their unstemmed terms; a query's unstemmed forms still match them
 * (analyze-query.ts adds them as alternatives), and re-ingesting gives them the stemmed ones.
 */
const EXTRA_STEMMERS: Readonly<Record<string, StemFn>> = { el: greekStemmer, hi: hindiStemmer };

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
    const stemmer = algorithm ? snowball.newStemmer(algorithm) : { stem: extra };
    const memo = new Map<string, string>();
    fn = (word: string): string => {
      let s = memo.get(word);
      if (s === undefined) {
        s = stemmer.stem(word);
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(word, s);
      }
      return s;
    };
  }
  stemmers.set(key, fn);
  return fn;
}
