// A search inside one document reads a query word that is the document's own name, written as an
// initialism of its label ("JnJ" for JOHNSON_JOHNSON_2022_10K), as that name. The label is indexed with
// every chunk (ingest/chunk-rows.ts documentLabel), so inside the document every candidate then holds the
// word, and it weighs as little as the name written out does. Without this the few passages that happen to
// write the initialism (a cover page's ticker "JNJ", a list of subsidiaries "JNJ Holding EMEA B.V.") held
// the rarest word of the question and outranked the statements that answer it.
// The query text itself says the name, so BM25, the query vector and coverage all see it: with `doc_filter`
// before the query is analysed (search-service.ts), and for a document a namespace search is routed to in
// that document's own analysis and reads (route-search.ts).
import { initialismWords, queryInitialisms } from './route-documents.ts';

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
