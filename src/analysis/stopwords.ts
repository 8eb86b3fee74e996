// Query-side stopwords (issue 11: "verbose questions analysed so that instruction boilerplate and
// stopwords do not outweigh the content words"). Lists come from the `stopword` package (62 languages,
// short curated lists: 108 English words such as "the", "is", "what", not content words). They are
// analysed with the same analyser as documents, so the comparison is term-to-term (stemmed, folded).
// Documents keep every word: the index is unchanged, only the query's BM25 terms and the coverage
// normaliser (stages/coverage.ts) skip these terms.
import { createRequire } from 'node:module';
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

const cache = new Map<string, ReadonlySet<string>>();

/**
 * The analysed stopword terms of a language (stemmed with that language, plus their unstemmed forms),
 * memoised; an empty set for languages without a list and for null.
 * @param lang ISO 639-1 code or null
 */
export function stopTerms(lang: string | null): ReadonlySet<string> {
  const key = lang ?? '';
  let set = cache.get(key);
  if (set) return set;
  const words = lang && KEY_BY_LANG[lang] ? (lists[KEY_BY_LANG[lang]] as string[] | undefined) ?? [] : [];
  const terms = new Set<string>();
  for (const w of words) {
    // Multi-word entries and entries that analyse into several terms (CJK bigrams) are skipped: only a
    // single-term entry can be compared with a single query term.
    for (const l of [lang, null]) {
      const t = analyze(w, l);
      if (t.length === 1) terms.add(t[0]);
    }
  }
  set = terms;
  cache.set(key, set);
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
