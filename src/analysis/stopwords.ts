// Query-side stopwords ("verbose questions analysed so that instruction boilerplate and
// stopwords do not outweigh the content words"). Lists come from the `stopword` package (62 languages,
// short curated lists: 108 English words such as "the", "is", "what", not content words). They are
// analysed with the same analyser as documents, so the comparison is term-to-term (stemmed, folded).
// Documents keep every word: the index is unchanged, only the query's BM25 terms and the coverage
// normaliser (stages/coverage.ts) skip these terms.
// The query also drops the words of `@orama/stopwords` (queryStopTerms): `stopword`'s Spanish list has 59
// words and lacks "es", "son", "fue", "hay", "cuántos", so a Spanish question counted its copula as a
// content word. Those extra words are dropped by the query only — the terms a document's stored phrase
// pairs skip (phraseSkipTerms) stay `stopword`'s, so that rows already stored keep matching.
import { createRequire } from 'node:module';
import { stopwords as arabic } from '@orama/stopwords/arabic';
import { stopwords as bulgarian } from '@orama/stopwords/bulgarian';
import { stopwords as danish } from '@orama/stopwords/danish';
import { stopwords as dutch } from '@orama/stopwords/dutch';
import { stopwords as english } from '@orama/stopwords/english';
import { stopwords as finnish } from '@orama/stopwords/finnish';
import { stopwords as french } from '@orama/stopwords/french';
import { stopwords as german } from '@orama/stopwords/german';
import { stopwords as greek } from '@orama/stopwords/greek';
import { stopwords as hungarian } from '@orama/stopwords/hungarian';
import { stopwords as hindi } from '@orama/stopwords/indian';
import { stopwords as indonesian } from '@orama/stopwords/indonesian';
import { stopwords as irish } from '@orama/stopwords/irish';
import { stopwords as italian } from '@orama/stopwords/italian';
import { stopwords as lithuanian } from '@orama/stopwords/lithuanian';
import { stopwords as chinese } from '@orama/stopwords/mandarin';
import { stopwords as nepali } from '@orama/stopwords/nepali';
import { stopwords as norwegian } from '@orama/stopwords/norwegian';
import { stopwords as portuguese } from '@orama/stopwords/portuguese';
import { stopwords as romanian } from '@orama/stopwords/romanian';
import { stopwords as russian } from '@orama/stopwords/russian';
import { stopwords as serbian } from '@orama/stopwords/serbian';
import { stopwords as spanish } from '@orama/stopwords/spanish';
import { stopwords as swedish } from '@orama/stopwords/swedish';
import { stopwords as tamil } from '@orama/stopwords/tamil';
import { stopwords as turkish } from '@orama/stopwords/turkish';
import { stopwords as ukrainian } from '@orama/stopwords/ukrainian';
import { analyze } from './analyzer.ts';

// CommonJS without type declarations: a record of ISO 639-3 code -> word list.
const lists = createRequire(import.meta.url)('stopword') as Record<string, unknown>;

/** ISO 639-1 -> the package's ISO 639-3 key, for the languages the analyser stems or segments. */
const KEY_BY_LANG: Readonly<Record<string, string>> = {
  af: 'afr', ar: 'ara', bg: 'bul', bn: 'ben', ca: 'cat', cs: 'ces', da: 'dan', de: 'deu', el: 'ell', en: 'eng',
  es: 'spa', et: 'est', eu: 'eus', fa: 'fas', fi: 'fin', fr: 'fra', ga: 'gle', gl: 'glg', he: 'heb', hi: 'hin',
  hr: 'hrv', hu: 'hun', hy: 'hye', id: 'ind', it: 'ita', ja: 'jpn', ko: 'kor', lt: 'lit', lv: 'lav', mr: 'mar',
  ms: 'msa', nb: 'nob', nl: 'nld', no: 'nob', pl: 'pol', pt: 'por', ro: 'ron', ru: 'rus', sk: 'slk', sl: 'slv',
  sv: 'swe', sw: 'swa', th: 'tha', tr: 'tur', uk: 'ukr', ur: 'urd', vi: 'vie', zh: 'zho',
};

/**
 * ISO 639-1 -> `@orama/stopwords` list. Its "armenian", "slovenian" and "sanskrit" entries are left out:
 * they point at the Amharic, Russian and Slovak files.
 */
const ORAMA_BY_LANG: Readonly<Record<string, readonly string[]>> = {
  ar: arabic, bg: bulgarian, da: danish, nl: dutch, en: english, fi: finnish, fr: french, de: german, el: greek,
  hu: hungarian, hi: hindi, id: indonesian, ga: irish, it: italian, lt: lithuanian, zh: chinese, ne: nepali,
  no: norwegian, nb: norwegian, pt: portuguese, ro: romanian, ru: russian, sr: serbian, es: spanish, sv: swedish,
  ta: tamil, tr: turkish, uk: ukrainian,
};
const cache = new Map<string, ReadonlySet<string>>();
const queryCache = new Map<string, ReadonlySet<string>>();

/** The single-term analyses of `words` (stemmed with `lang`, and unstemmed). */
function singleTerms(words: readonly string[], lang: string): Set<string> {
  const terms = new Set<string>();
  for (const w of words) {
    // Multi-word entries and entries that analyse into several terms (CJK bigrams) are skipped: only a
    // single-term entry can be compared with a single query term.
    for (const l of [lang, null]) {
      const t = analyze(w, l);
      if (t.length === 1) terms.add(t[0]);
    }
  }
  return terms;
}

/**
 * The analysed stopword terms of a language from the `stopword` package (stemmed with that language, plus
 * their unstemmed forms), memoised; an empty set for languages without a list and for null. These are the
 * terms a document's phrase pairs skip (phraseSkipTerms), so changing them changes what ingest stores.
 * @param lang ISO 639-1 code or null
 */
export function stopTerms(lang: string | null): ReadonlySet<string> {
  const key = lang ?? '';
  let set = cache.get(key);
  if (set) return set;
  const words = lang && KEY_BY_LANG[lang] ? (lists[KEY_BY_LANG[lang]] as string[] | undefined) ?? [] : [];
  set = lang ? singleTerms(words, lang) : new Set<string>();
  cache.set(key, set);
  return set;
}

/**
 * The terms a query drops as stopwords: stopTerms(lang) plus the analysed words of `@orama/stopwords` for
 * the language (Orama's lists: Snowball's for most languages, a longer one for Spanish), memoised. Only
 * the query uses the extra words (analyze-query.ts); ingest does not.
 * Measured on the XQuAD TRAINING half (even articles) in namespaces of 10 paragraphs, answer in the
 * default context, `stopword` alone → with Orama's words: es 0.928 → 0.966, en 0.967 → 0.971,
 * ru 0.928 → 0.930, zh 0.940 → 0.941, ar, de, el, hi, ro, th, tr, vi unchanged (docs/search.md).
 * @param lang ISO 639-1 code or null
 */
export function queryStopTerms(lang: string | null): ReadonlySet<string> {
  const key = lang ?? '';
  let set = queryCache.get(key);
  if (set) return set;
  const extra = lang ? ORAMA_BY_LANG[lang] : undefined;
  set = extra ? new Set([...stopTerms(lang), ...singleTerms(extra, lang!)]) : stopTerms(lang);
  queryCache.set(key, set);
  return set;
}

/**
 * Words of prompt instructions rather than of the information asked for, as they occur in the public
 * default prompt templates of RAG frameworks (LangChain hub `rlm/rag-prompt`: "You are an assistant for
 * question-answering tasks. Use the following pieces of retrieved context to answer the question…";
 * LlamaIndex DEFAULT_TEXT_QA_PROMPT: "Context information is below… Given the context information and
 * not prior knowledge, answer the query. Query: … Answer:"; Haystack's default RAG prompt; the OpenAI
 * cookbook's "Answer the question based on the context below…"). Only unambiguous meta words are kept:
 * "information", "based", "knowledge", "given" also name content and stay searchable. Treated as query
 * stopwords (English: agents wrap questions in English instructions whatever the documents' language).
 */
const PROMPT_WORDS = [
  'answer', 'answers', 'answering', 'question', 'questions', 'query', 'queries', 'context', 'assistant', 'helpful',
  'provided', 'following', 'retrieved', 'pieces', 'concise', 'respond', 'response', 'please', 'task', 'tasks', 'user',
];

/**
 * The prompt words that mark a sentence as an instruction to the reader of the answer (coverage.ts, the
 * sentence drop): PROMPT_WORDS less those that also name content in ordinary text — "please" (a polite
 * request for information), "provided", "following", "pieces", "response" ("immune response"), "task",
 * "user", "context" ("in the context of"). "Answer the question using the documents." is an instruction;
 * "Please list 3M's 2018 revenue." is not.
 */
const INSTRUCTION_MARKERS = ['answer', 'answers', 'answering', 'question', 'questions', 'query', 'queries', 'assistant', 'helpful', 'retrieved', 'concise', 'respond'];
let markerCache: ReadonlySet<string> | null = null;
let promptCache: ReadonlySet<string> | null = null;

/** The analysed forms (English-stemmed and plain) of a list of English words. */
function analysedForms(words: readonly string[]): ReadonlySet<string> {
  const terms = new Set<string>();
  for (const w of words) for (const l of ['en', null]) for (const t of analyze(w, l)) terms.add(t);
  return terms;
}

/** Analysed forms (English-stemmed and plain) of INSTRUCTION_MARKERS. */
export function instructionMarkerTerms(): ReadonlySet<string> {
  return (markerCache ??= analysedForms(INSTRUCTION_MARKERS));
}

/** Analysed forms (English-stemmed and plain) of PROMPT_WORDS. */
export function promptTerms(): ReadonlySet<string> {
  return (promptCache ??= analysedForms(PROMPT_WORDS));
}

const phraseCache = new Map<string, ReadonlySet<string>>();

/**
 * The terms a document's phrase pairs (analysis/term-hash.ts pairHashSet) skip: stopTerms(lang), English
 * stopTerms and promptTerms — the same words the query drops before it forms its pairs
 * (search/stages/analyze-query.ts), so that "cash flow statement" in a query and "statement of cash flows"
 * in a chunk share their pair (cash, flow). Memoised per language.
 * @param lang the document's ISO 639-1 code, or null
 */
export function phraseSkipTerms(lang: string | null): ReadonlySet<string> {
  const key = lang ?? '';
  let set = phraseCache.get(key);
  if (!set) phraseCache.set(key, (set = new Set([...stopTerms(lang), ...stopTerms('en'), ...promptTerms()])));
  return set;
}
