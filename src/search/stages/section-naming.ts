// The sections of one document that a query names by their heading: "… from the statement of income and
// the cash flow statement" names a filing's sections headed "Consolidated Statements of Cash Flows" and
// "Consolidated Statement of Income". Such a section's passages often hold none of the question's other
// words (a statement table holds line items and figures, not "capex as a % of revenue"), so a document's
// ranking left them under the narrative that discusses the question's words; the query naming the section
// is the evidence that it is what the user wants: its passing regions rank above the rest of the document
// (belowNamed). The named sections are searched in search/section-search.ts; this module reads the outline
// and the query and orders the result. Pure functions.
import type { Region } from '../types.ts';

/** One chunk's place in the document's outline, as the index stores it (`heading_path`, ' > '-joined). */
export interface OutlineRow {
  chunk_index: number;
  heading_path: string;
}

/** A section of the outline: its heading's content terms and its chunks, in document order. */
export interface OutlineSection {
  heading: string;
  terms: string[];
  chunks: number[];
}

/** Least number of a heading's content terms a query must hold for the heading to be named. */
export const MIN_NAMED_TERMS = 2;

/**
 * Least share of a heading's content terms a query must hold: "cash flow statement" names "Consolidated
 * Statements of Cash Flows" (statement, cash, flow of consolid, statement, cash, flow), "income statement"
 * does not name "Consolidated Statements of Comprehensive Income" (2 of 4). A prior, not fitted: two thirds
 * lets one modifier ("consolidated", "condensed") be missing and no more.
 */
export const MIN_NAMED_SHARE = 2 / 3;

/** Chunks taken from the start of each named section (a statement spans one to four chunks). */
export const NAMED_SECTION_CHUNKS = 4;

/** Most sections one query names in one document (best held first). */
export const MAX_NAMED_SECTIONS = 4;

/**
 * The sections of a document's outline: one per distinct heading-path prefix, with the chunks under it.
 * A heading's parenthesised text ("(Amounts in millions)") is left out of its terms.
 * @param rows    every chunk's heading path (OutlineRow), any order
 * @param analyse the analyser for heading text (terms as the query's groups hold them, stopwords dropped)
 * @returns sections with at least one content term, in order of first appearance
 */
export function outlineSections(rows: readonly OutlineRow[], analyse: (text: string) => string[]): OutlineSection[] {
  const byPath = new Map<string, OutlineSection>();
  for (const row of [...rows].sort((a, b) => a.chunk_index - b.chunk_index)) {
    const parts = row.heading_path.split(' > ').map((p) => p.trim()).filter(Boolean);
    for (let depth = 0; depth < parts.length; depth++) {
      const key = parts.slice(0, depth + 1).join(' > ');
      let s = byPath.get(key);
      if (!s) {
        const terms = [...new Set(analyse(parts[depth].replace(/\([^)]*\)/g, ' ')))];
        s = { heading: parts[depth], terms, chunks: [] };
        byPath.set(key, s);
      }
      s.chunks.push(row.chunk_index);
    }
  }
  return [...byPath.values()].filter((s) => s.terms.length > 0);
}

/**
 * The chunks of the sections a query names: a heading is named when the query holds at least
 * MIN_NAMED_TERMS of its content terms and at least MIN_NAMED_SHARE of them, not counting the terms of the
 * document's label (a heading "3M Company" is the document, not a section of it). The first
 * NAMED_SECTION_CHUNKS chunks of at most MAX_NAMED_SECTIONS named sections (most terms held first).
 * A section nested in another named one adds only its own chunks (the set is deduplicated).
 * @param sections   outlineSections() of the document
 * @param queryTerms every term of the query's word groups (stemmed and unstemmed forms)
 * @param labelTerms the analysed terms of the document's label (title and file name)
 * @returns chunk indices, ascending; empty when the query names no section
 */
export function namedSectionChunks(sections: readonly OutlineSection[], queryTerms: ReadonlySet<string>, labelTerms: ReadonlySet<string>): number[] {
  const named: Array<{ held: number; share: number; s: OutlineSection }> = [];
  for (const s of sections) {
    const own = s.terms.filter((t) => !labelTerms.has(t));
    if (own.length < MIN_NAMED_TERMS) continue;
    const held = own.filter((t) => queryTerms.has(t)).length;
    const share = held / own.length;
    if (held >= MIN_NAMED_TERMS && share >= MIN_NAMED_SHARE) named.push({ held, share, s });
  }
  named.sort((a, b) => b.held - a.held || b.share - a.share || a.s.chunks[0] - b.s.chunks[0]);
  const out = new Set<number>();
  for (const { s } of named.slice(0, MAX_NAMED_SECTIONS)) for (const c of s.chunks.slice(0, NAMED_SECTION_CHUNKS)) out.add(c);
  return [...out].sort((a, b) => a - b);
}

/**
 * Place the regions outside the named sections below the weakest passing region of the named sections:
 * scores s in [floor, 1] map linearly onto [minRelevance, floor) — order among themselves kept, a passing
 * region still passing. Scores under the floor are left as they are. Nothing changes when no named region
 * passes.
 * @param outside      regions outside the named sections (scores changed in place)
 * @param named        the named sections' regions
 * @param minRelevance the request's min_relevance
 */
export function belowNamed(outside: Region[], named: readonly Region[], minRelevance: number): void {
  const passing = named.filter((x) => x.score >= minRelevance);
  if (passing.length === 0) return;
  const floor = Math.min(...passing.map((x) => x.score));
  if (floor >= 1) return;
  for (const x of outside) if (x.score >= floor) x.score = minRelevance + ((floor - minRelevance) * (x.score - minRelevance)) / (1 - minRelevance);
}
