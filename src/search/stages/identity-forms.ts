// A search inside one document reads a query word that is the document's own name, written as an
// initialism of its label ("JnJ" for JOHNSON_JOHNSON_2022_10K), as that name. The label is indexed with
// every chunk (ingest/chunk-rows.ts documentLabel), so inside the document every candidate then holds the
// word, and it weighs as little as the name written out does. Without this the few passages that happen to
// write the initialism (a cover page's ticker "JNJ", a list of subsidiaries "JNJ Holding EMEA B.V.") held
// the rarest word of the question and outranked the statements that answer it.
// Two forms: with `doc_filter` the label is known before the query is analysed, and the query text itself
// says the name (nameInitialisms: BM25, the query vector and coverage all see it); a document a namespace
// search is routed to is known only after its one analysis, and its word groups take the name's terms
// (withIdentityForms: coverage sees it).
import { analyze } from '../../analysis/analyzer.ts';
import type { AnalysedQuery } from './analyze-query.ts';
import { initialismWords, queryInitialisms } from './route-documents.ts';

/**
 * The query analysis for a search inside one document: each word group that holds an initialism the
 * query writes (route-documents.ts queryInitialisms) and that the document's label allows
 * (route-documents.ts initialismWords) gets the analysed terms of the label words it stands for.
 * Nothing else changes: BM25 terms, weights, segments and phrase pairs are those of `analysed`.
 * Cost: O(query words × label runs).
 * @param analysed the query's analysis (analyze-query.ts analyseQuery), not modified
 * @param query    the query text the analysis was made from
 * @param label    the document's label (ingest/chunk-rows.ts documentLabel of its title and file name)
 * @param defined  short forms of the query that the documents define (left as they are, as nameInitialisms)
 * @returns `analysed` itself when no initialism names the document, else a copy with extended groups
 */
export function withIdentityForms(analysed: AnalysedQuery, query: string, label: string, defined: ReadonlySet<string> = new Set()): AnalysedQuery {
  let groups: string[][] | null = null;
  for (const [skeleton, token] of queryInitialisms(query)) {
    if (defined.has(token)) continue;
    const words = initialismWords(label, skeleton);
    if (!words) continue;
    const own = new Set(analyze(token, null));
    const forms = [...new Set(analyze(words.join(' '), analysed.stemLang))];
    (groups ?? analysed.groups).forEach((g, w) => {
      if (!g.some((t) => own.has(t))) return;
      groups ??= analysed.groups.map((x) => [...x]);
      for (const f of forms) if (!groups[w].includes(f)) groups[w].push(f);
    });
  }
  return groups === null ? analysed : { ...analysed, groups };
}

/**
 * The query with each initialism the document's label allows replaced by the label words it stands for
 * ("What was JnJ's sales growth?" → "What was JOHNSON JOHNSON's sales growth?" for the label
 * "… (JOHNSON JOHNSON 2022Q4 EARNINGS)"). Other text is kept as written.
 * An initialism the project's documents define as a short form ("accounts receivable (AR)" against a
 * document titled "Annual Report …") keeps that meaning: it is in `defined` and left as written.
 * @param query   the query text
 * @param label   the document's label (ingest/chunk-rows.ts documentLabel of its title and file name)
 * @param defined short forms of the query that the documents define (stages/short-forms.ts withLongForms)
 * @returns the query, rewritten where an initialism names the document
 */
export function nameInitialisms(query: string, label: string, defined: ReadonlySet<string> = new Set()): string {
  let out = query;
  for (const [skeleton, token] of queryInitialisms(query)) {
    if (defined.has(token)) continue;
    const words = initialismWords(label, skeleton);
    if (!words) continue;
    const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}&.])${escaped}(?![\\p{L}\\p{N}&])`, 'gu'), words.join(' '));
  }
  return out;
}
