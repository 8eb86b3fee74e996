// Stage 1 of retrieval, before the query is analysed: a short form in the query ("PPNE", "TNF") is followed
// by the long form that the project's visible documents define for it ("property, plant and equipment (PP&E)"
// in a filing; analysis/abbreviations.ts), so that BM25, coverage, phrase pairs and the query vector all see
// the words the passages are written in. "Did Pfizer grow its PPNE between FY20 and FY21?" had its
// balance sheet at rank 98 of the filing (0.03); with the long form it is fourth (0.90).
import { expandShortForms, extractDefinitions, queryShortForms } from '../../analysis/abbreviations.ts';
import { analyze } from '../../analysis/analyzer.ts';

/** A long form a visible document defines under a lookup key. */
export interface LongFormRow {
  key: string;
  /** The short form as the document wrote it ("PP&E"). */
  shortForm: string;
  longForm: string;
  docId: string;
}

/**
 * The long form to add after each short form of the query: of the long forms defined under the word's
 * keys, the one defined by most documents of the search's scope (searchInDoc's document), then by most
 * documents, then the shorter, then the first alphabetically (deterministic). A long form whose words the
 * query already holds is not added (the query spelled it out).
 * @param words     queryShortForms(query)
 * @param rows      the definitions the lookup found for the words' keys
 * @param scopeDoc  the one document searched (searchInDoc), if any
 * @returns short form as written in the query → long form
 */
export function chooseLongForms(query: string, words: ReadonlyArray<{ word: string; keys: string[] }>, rows: readonly LongFormRow[], scopeDoc?: string): Map<string, string> {
  const out = new Map<string, string>();
  const queryWords = new Set(wordsOf(query));
  const ownDefined = new Set(extractDefinitions(query).map((d) => d.short));
  // Each distinct short form is analysed once (a lookup returns at most 2 000 rows).
  const spelled = new Map<string, string>();
  const spellingOf = (short: string) => {
    let v = spelled.get(short);
    if (v === undefined) spelled.set(short, (v = spelling(short)));
    return v;
  };
  for (const { word, keys } of words) {
    const byLong = new Map<string, { long: string; docs: Set<string>; inScope: boolean }>();
    // Only a short form that no document writes as the query does: one that some document defines in the
    // query's spelling ("TNF", "SG&A"; a plural "s" aside) is written that way and matches by itself, and
    // a long form would add words that the passages using it do not hold — or another sense's ("ATM" in one
    // abstract, "ATMs" for adipose tissue macrophages in another). Added regardless, SciFact training
    // nDCG@10 fell 0.7039 → 0.6988. Nor one the query defines itself ("patent ductus arteriosus (PDA)").
    const asWritten = spelling(word);
    const mine = rows.filter((r) => keys.includes(r.key));
    if (ownDefined.has(word) || mine.some((r) => spellingOf(r.shortForm) === asWritten)) continue;
    for (const r of mine) {
      const norm = wordsOf(r.longForm).join(' ');
      if (!norm) continue;
      const e = byLong.get(norm) ?? { long: r.longForm.replace(/\s+/g, ' ').trim(), docs: new Set<string>(), inScope: false };
      e.docs.add(r.docId);
      if (r.docId === scopeDoc) e.inScope = true;
      byLong.set(norm, e);
    }
    let best: { norm: string; long: string; docs: Set<string>; inScope: boolean } | null = null;
    for (const [norm, e] of byLong) {
      const c = { norm, ...e };
      if (!best || better(c, best)) best = c;
    }
    if (best && !best.norm.split(' ').every((w) => queryWords.has(w))) out.set(word, best.long);
  }
  return out;
}

function better(a: { norm: string; docs: Set<string>; inScope: boolean }, b: { norm: string; docs: Set<string>; inScope: boolean }): boolean {
  if (a.inScope !== b.inScope) return a.inScope;
  if (a.docs.size !== b.docs.size) return a.docs.size > b.docs.size;
  if (a.norm.length !== b.norm.length) return a.norm.length < b.norm.length;
  return a.norm < b.norm;
}

/**
 * How the analyser indexes a short form, a plural "s" after capitals aside ("ESCs" as "ESC") and letters
 * and digits joined ("PD-1" as "PD1": the query analysis splits a letter/digit compound into the same
 * parts, analyze-query.ts).
 */
function spelling(short: string): string {
  return analyze(short.replace(/(\p{Lu}{2,})s$/u, '$1'), null).join(' ').replace(/(?<=\p{L}) (?=\p{N})|(?<=\p{N}) (?=\p{L})/gu, '');
}

/** Lower-cased letter/digit runs of a text (for comparing long forms and the query's words). */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The query as retrieval and ranking see it: each short form that a visible document defines followed by
 * its long form; the query itself when it holds no short form or none is defined (then nothing is read).
 * @param lookup reads the definitions of the given keys from the project's visible documents
 * @returns the text, and the short forms (as the query writes them) that were given a long form
 */
export async function withLongForms(query: string, lookup: (keys: string[]) => Promise<LongFormRow[]>, scopeDoc?: string): Promise<{ text: string; defined: ReadonlySet<string> }> {
  const words = queryShortForms(query);
  if (words.length === 0) return { text: query, defined: new Set() };
  const rows = await lookup([...new Set(words.flatMap((w) => w.keys))]);
  const chosen = chooseLongForms(query, words, rows, scopeDoc);
  return { text: expandShortForms(query, chosen), defined: new Set(chosen.keys()) };
}
