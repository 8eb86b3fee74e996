// Abbreviations a document defines, so that a query written with the short form finds passages written
// with the long form. Filings, papers and manuals define a term once — "Purchases of property,
// plant and equipment (PP&E)", "tumor necrosis factor (TNF)" — and then write either form; a question asks
// for "net PPNE" or "TNF levels" and no lexical or GloVe match links the letters to the words. Definitions are
// found at ingest with the algorithm of Schwartz & Hearst 2003 ("A simple algorithm for identifying
// abbreviation definitions in biomedical text", PSB 2003): a short form in parentheses after its long form,
// the long form being the shortest run of preceding words whose characters contain the short form's
// letters in order, its first letter at a word start. No npm package implements it (the registry's
// "abbreviation" packages are Emmet's and fixed lists).
//
// Keys: a short form is looked up by its letters and digits, lower-cased; an "&" is keyed both dropped and
// as "n" (the "PnL" / "RnD" spelling of "P&L" / "R&D"), and a plural "s" after two capitals is dropped —
// "PP&E", "PPE" and "PPNE" meet; "RSUs" and "RSU" meet.

/** Longest short form considered (characters), as Schwartz & Hearst's ≤ 10. */
const MAX_SHORT = 10;
/** Longest long form kept (characters); a longer one is a sentence, not a term. */
const MAX_LONG = 120;
/** Short forms of a query looked up at most (a 10 000-character query is ≈ 1 500 words). */
export const MAX_QUERY_SHORT_FORMS = 32;
/** Definitions kept per document (distinct short form and long form), first found first. */
export const MAX_DEFINITIONS = 200;

export interface AbbreviationDefinition {
  /** The short form as written, quotes removed: "PP&E". */
  short: string;
  /** The long form as written, whitespace collapsed: "property, plant and equipment". */
  long: string;
}

// Every quantifier is bounded, so each "(" costs a bounded number of steps whatever follows it.
const SHORT_IN_PARENS = /\(\s{0,4}["'“‘]?([^()"'“”‘’\s][^()"“”]{0,14}?)["'”’]?\s{0,4}\)/g;
const SENTENCE_OR_PAREN = new Set(['.', '!', '?', ';', ':', '(', ')']);
const WORD_LIKE = /[\p{L}\p{N}]/u;

/**
 * Whether `s` looks like a short form: 2–10 characters, starts with a letter or digit, at most two words,
 * at least two capital letters and no lower-case run of three (so "(Millions)", "(Loss)", "(2018)" are not).
 */
export function isShortForm(s: string): boolean {
  if (s.length < 2 || s.length > MAX_SHORT || !WORD_LIKE.test(s[0])) return false;
  if (s.split(/\s+/).length > 2) return false;
  const capitals = s.match(/\p{Lu}/gu)?.length ?? 0;
  return capitals >= 2 && !/\p{Ll}{3}/u.test(s);
}

/**
 * The long form of `short` at the end of `before` (Schwartz & Hearst 2003, findBestLongForm): walking both
 * strings backwards, each letter or digit of the short form is matched to the same character earlier in
 * the text, the first one at the start of a word; the long form starts at that word.
 * @param before the text preceding the parenthesis, already cut to at most min(|SF| + 5, 2·|SF|) words
 * @returns the long form, or null when the letters do not occur in order
 */
export function bestLongForm(short: string, before: string): string | null {
  return initialsLongForm(short, before) ?? lettersLongForm(short, before);
}

/**
 * The long form whose word initials spell the short form (backwards, skipping words such as "and" or
 * "of"): "purchases of property, plant and equipment" for "PP&E", where the letter walk of Schwartz &
 * Hearst stops at "plant" (its P matches inside "equipment"). Null when the initials do not spell it.
 */
function initialsLongForm(short: string, before: string): string | null {
  const letters = [...short.toLowerCase()].filter((c) => WORD_LIKE.test(c));
  const words = before.split(' ');
  let wi = words.length - 1;
  for (let si = letters.length - 1; si >= 0; si--) {
    while (wi >= 0 && initialOf(words[wi]) !== letters[si]) wi--;
    if (wi < 0) return null;
    if (si > 0) wi--;
  }
  return words.slice(wi).join(' ').trim();
}

/** The first letter or digit of a word, lower-cased ('' when it has none). */
function initialOf(word: string): string {
  const m = /[\p{L}\p{N}]/u.exec(word);
  return m ? m[0].toLowerCase() : '';
}

/** Schwartz & Hearst's letter walk (see bestLongForm). */
function lettersLongForm(short: string, before: string): string | null {
  const s = short.toLowerCase();
  const l = before.toLowerCase();
  let si = s.length - 1;
  let li = l.length - 1;
  for (; si >= 0; si--) {
    const c = s[si];
    if (!WORD_LIKE.test(c)) continue;
    while (li >= 0 && (l[li] !== c || (si === 0 && li > 0 && WORD_LIKE.test(l[li - 1])))) li--;
    if (li < 0) return null;
    li--;
  }
  const start = l.lastIndexOf(' ', li) + 1;
  return before.slice(start).trim();
}

/**
 * Every abbreviation definition "long form (SF)" in `text`, in order of appearance, distinct by (short
 * form, long form). Linear in the text: one scan for parentheses, and for each a window of at most
 * 2·|SF| ≤ 20 preceding words that does not cross a sentence end or another parenthesis.
 * @param text a chunk or page of a document
 */
export function extractDefinitions(text: string): AbbreviationDefinition[] {
  const out: AbbreviationDefinition[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(SHORT_IN_PARENS)) {
    const short = m[1].trim();
    if (!isShortForm(short)) continue;
    const letters = short.replace(/[^\p{L}\p{N}]/gu, '').length;
    const maxWords = Math.min(letters + 5, letters * 2);
    // The preceding text back to a sentence end or another parenthesis, its last maxWords words.
    const head = text.slice(Math.max(0, m.index - 400), m.index);
    let cut = head.length - 1;
    while (cut >= 0 && !SENTENCE_OR_PAREN.has(head[cut])) cut--;
    const words = head.slice(cut + 1).replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
    if (words.length === 0) continue;
    const window = words.slice(-maxWords).join(' ');
    const long = bestLongForm(short, window);
    if (!long || long.length > MAX_LONG || long.split(' ').length < 2) continue;
    if (long.toLowerCase().includes(short.toLowerCase())) continue;
    const key = `${short}\u0000${long.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ short, long });
  }
  return out;
}

/**
 * The lookup keys of a short form: its letters and digits lower-cased, with "&" dropped and as "n", and
 * without a plural "s" after two capitals ("RSUs"). Empty when fewer than two letters or digits remain.
 */
export function shortFormKeys(short: string): string[] {
  const base = short.replace(/(\p{Lu}{2,})s$/u, '$1');
  const keys = new Set<string>();
  for (const v of [base.replace(/&/g, ''), base.replace(/&/g, 'n')]) {
    const k = v.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
    if (k.length >= 2) keys.add(k);
  }
  return [...keys];
}

/** A definition under one of its lookup keys (a row of `document_abbreviations`). */
export interface KeyedDefinition {
  key: string;
  short: string;
  long: string;
}

/**
 * A document's definitions, gathered chunk by chunk at ingest: those of each distinct heading of the
 * chunks' paths (a section titled "Property, plant and equipment (PP&E)" defines it; a heading repeated on
 * every chunk of its section is read once) and of each chunk's content, distinct by (short form, long
 * form), the first MAX_DEFINITIONS of them.
 */
export class DefinitionCollector {
  private readonly defs = new Map<string, AbbreviationDefinition>();
  private readonly headings = new Set<string>();

  /** Add one chunk's definitions; linear in its text (extractDefinitions), nothing once the cap is reached. */
  add(chunk: { heading_path: readonly string[]; content: string }): void {
    for (const h of chunk.heading_path) {
      if (this.headings.has(h)) continue;
      this.headings.add(h);
      this.keep(extractDefinitions(h));
    }
    this.keep(extractDefinitions(chunk.content));
  }

  /** The gathered definitions under their lookup keys (keyedDefinitions). */
  keyed(): KeyedDefinition[] {
    return keyedDefinitions([...this.defs.values()]);
  }

  private keep(found: readonly AbbreviationDefinition[]): void {
    for (const d of found) {
      if (this.defs.size === MAX_DEFINITIONS) return;
      const id = `${d.short}\u0000${d.long.toLowerCase()}`;
      if (!this.defs.has(id)) this.defs.set(id, d);
    }
  }
}

/**
 * Definitions under their lookup keys: one entry per (key, long form), at most MAX_DEFINITIONS
 * definitions, first found first.
 */
export function keyedDefinitions(defs: readonly AbbreviationDefinition[]): KeyedDefinition[] {
  const out: KeyedDefinition[] = [];
  const seen = new Set<string>();
  for (const d of defs.slice(0, MAX_DEFINITIONS)) {
    for (const key of shortFormKeys(d.short)) {
      const id = `${key}\u0000${d.long.toLowerCase()}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ key, short: d.short, long: d.long });
    }
  }
  return out;
}

/**
 * The words of a query that look like short forms (isShortForm, on whitespace-separated words with
 * surrounding punctuation and a possessive "'s" removed), each with its lookup keys, distinct, the first
 * MAX_QUERY_SHORT_FORMS of them.
 */
export function queryShortForms(query: string): Array<{ word: string; keys: string[] }> {
  const out = new Map<string, string[]>();
  for (const raw of query.split(/\s+/)) {
    const word = bareWord(raw);
    if (!isShortForm(word) || out.has(word)) continue;
    const keys = shortFormKeys(word);
    if (keys.length > 0) out.set(word, keys);
    if (out.size === MAX_QUERY_SHORT_FORMS) break;
  }
  return [...out].map(([word, keys]) => ({ word, keys }));
}

/**
 * The query with each defined short form followed by its long form, commas removed so that it stays in
 * the short form's clause: "Did Pfizer grow its PPNE?" → "Did Pfizer grow its PPNE property plant and
 * equipment?". Words without an entry in `longForms` are left as they are.
 */
export function expandShortForms(query: string, longForms: ReadonlyMap<string, string>): string {
  if (longForms.size === 0) return query;
  return query.replace(/\S+/g, (raw) => {
    const word = bareWord(raw);
    const long = longForms.get(word);
    if (!long) return raw;
    const at = raw.indexOf(word) + word.length;
    return `${raw.slice(0, at)} ${long.replace(/[,;:()]/g, ' ').replace(/\s+/g, ' ').trim()}${raw.slice(at)}`;
  });
}

/** A whitespace-separated word without surrounding punctuation and a possessive "'s" ("(PPNE's)," → PPNE). */
function bareWord(raw: string): string {
  return raw.replace(/^[^\p{L}\p{N}]+/u, '').replace(/['’]s$/u, '').replace(/[^\p{L}\p{N}&]+$/u, '');
}
