// A search inside one document reads a query word that is the document's own name, written as an
// initialism of its label ("JnJ" for JOHNSON_JOHNSON_2022_10K), as that name. The label is indexed with
// every chunk (ingest/chunk-rows.ts documentLabel), so inside the document every candidate then holds the
// word, and it weighs as little as the name written out does. Without this the few passages that happen to
// write the initialism (a cover page's ticker "JNJ", a list of subsidiaries "JNJ Holding EMEA B.V.") held
// the rarest word of the question and outranked the statements that answer it.
// The query text itself says the name, so BM25, the query vector and coverage all see it: with `doc_filter`
// before the query is analysed (search-service.ts), and for a document a namespace search is routed to in
// that document's own analysis and reads (route-search.ts).
import { initialismOf, initialismWords } from './route-documents.ts';

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
  // One pass over the query's words (linear in its length); each distinct initialism is looked up once.
  const names = new Map<string, string | null>();
  return query.replace(/\S+/g, (raw) => {
    const i = initialismOf(raw);
    if (!i || defined.has(i.token)) return raw;
    let name = names.get(i.skeleton);
    if (name === undefined) names.set(i.skeleton, (name = initialismWords(label, i.skeleton)?.join(' ') ?? null));
    if (name === null) return raw;
    const at = raw.indexOf(i.token);
    return raw.slice(0, at) + name + raw.slice(at + i.token.length);
  });
}
