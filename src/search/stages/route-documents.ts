// Document routing: which documents of the namespace a query is ABOUT, by their identity (label: title and
// file name), not by how often their text mentions the query's words. An analyst's namespace holds many
// filings of one company over many years; "Has MGM Resorts paid dividends in FY2022?" is about MGM's 2022
// filings, and the 2018, 2020 and 2023 filings, which write the same words as often, are siblings. Routing
// picks the documents whose label holds the query's naming word (a word the candidate documents that write
// it mostly carry in their label: a proper name, not a topic word), then among them the ones whose labels
// hold the most of the query's other label words (a year, a quarter, a form type) — a best match over the
// label field of a known-item search (cf. Ogilvie & Callan 2003 on known-item finding with document
// fields). The routed documents are then searched as `searchInDoc` searches them (route-search.ts);
// every other document, siblings included, ranks below them. Initialisms of label names ("JnJ", "J&J" for a
// file JOHNSON_JOHNSON_…) match the first letters of a run of label words, and runs of query words match a
// label word that joins them ("Bank of America", stages/name-runs.ts): general rules, no list of names.
// Cost: O(query words) lookups in the project's label index (label-index.ts bounds the labels) plus
// O(pool · query words) over the ≤ 200 retrieved candidates' term hashes.

/** Most documents a query is routed to: more are a topic, not an identity, and each costs an engine read. */
export const MAX_ROUTED_DOCS = 4;

/**
 * Least share of the candidate documents writing a word that must be documents whose label holds it for the
 * word to NAME documents (a company, a product) rather than be a topic word that labels happen to hold ("earnings"):
 * one half, the word is more often the label's own than anyone else's. Only documents of at least
 * MIN_SCOPE_CANDIDATES chunks take part (route-search.ts): short documents whose title is their topic (BEIR
 * SciFact abstracts) would otherwise be routed to by their topic words (docs/decisions/2026-11-29-document-routing.md).
 */
export const MIN_NAMING_SHARE = 0.5;

/** A query word (or a run of words written as one label word) that may name documents, and its holders. */
interface LabelWord {
  groups: number[];
  holders: ReadonlySet<string>;
  /** Share of the pool's occurrences of the word that lie in its holders (1 when no pool chunk holds it). */
  naming: number;
}

/** What routeDocuments needs; all of it is already at hand after retrieval. */
export interface RouteInput {
  /**
   * Per query word group (analyze-query.ts), the documents whose label holds one of the word's own terms as
   * a whole label word (label-index.ts): what can NAME documents. A piece of a label compound ("fy" of
   * "FY15", "2022" of "2022Q4") or of a query compound does not name: short codes are no identity.
   */
  names: ReadonlyArray<ReadonlySet<string>>;
  /** Per group, the documents whose label holds any of its terms, compound parts or pieces: what the best match counts. */
  holders: ReadonlyArray<ReadonlySet<string>>;
  /** Documents in the search's scope (the namespace, or its doc_ids / exclude_doc_ids). */
  docCount: number;
  /** Weight of each group (0 = not counted); absent = 1 each. */
  weights?: number[];
  /** The retrieved candidates: document and which groups the chunk's stored terms hold. */
  pool: Array<{ docId: string; holds: boolean[] }>;
  /**
   * Runs of written words that a label writes as one word ("Bank of America" → BANKOFAMERICA,
   * stages/name-runs.ts): the groups of the run's words and the documents the run names. A run names in
   * place of its words. `joined` indexes the pool's holding of the concatenation itself (the label word,
   * which every chunk of a document so labelled holds).
   */
  runs?: ReadonlyArray<{ groups: number[]; names: ReadonlySet<string>; joined: number }>;
  /** Per group, the year it writes (a term 1900–2099, "FY2022" included), else null. */
  years?: ReadonlyArray<number | null>;
}

/** Where a query is routed: the documents it is about. */
export interface Route {
  routed: string[];
  /** Naming share of the word that chose the documents (MIN_NAMING_SHARE ≤ naming ≤ 1). */
  naming: number;
}

/**
 * Route a query to the documents it names.
 * @returns null when no query word names documents, or when the naming leaves more than MAX_ROUTED_DOCS
 *          documents or every document in scope
 */
export function routeDocuments(input: RouteInput): Route | null {
  if (input.docCount < 2) return null;
  const usable = (set: ReadonlySet<string>) => set.size > 0 && set.size < input.docCount;
  // Share of the candidate DOCUMENTS writing word w that lie in `set` (1 when none writes it: a name only
  // its own labels carry, or an initialism no text writes). Documents, not chunks: every chunk of a labelled
  // document holds its label's words, so counting chunks would let a long document's title words pass for
  // names (a five-chunk abstract titled "… Citation Rate" named for any claim about rates).
  // A run's writers are the documents with a candidate holding every word of it, or the joined word.
  const share = (ws: readonly number[], set: ReadonlySet<string>, joined = -1) => {
    const writers = new Set<string>();
    for (const c of input.pool) if (ws.every((w) => c.holds[w]) || c.holds[joined]) writers.add(c.docId);
    if (writers.size === 0) return 1;
    let own = 0;
    for (const d of writers) if (set.has(d)) own++;
    return own / writers.size;
  };
  const counted = input.holders.map((_, w) => (input.weights?.[w] ?? 1) > 0);
  const runs = (input.runs ?? []).filter((r) => r.groups.some((w) => counted[w]));
  const inRun = new Set(runs.flatMap((r) => r.groups));
  const strongestFirst = (a: LabelWord, b: LabelWord) => b.naming - a.naming || a.holders.size - b.holders.size || a.groups[0] - b.groups[0];
  const naming = [
    ...input.names.flatMap((set, w) => (counted[w] && !inRun.has(w) && usable(set) ? [{ groups: [w], holders: set, naming: share([w], set) }] : [])),
    ...runs.flatMap((r) => (usable(r.names) ? [{ groups: r.groups, holders: r.names, naming: share(r.groups, r.names, r.joined) }] : [])),
  ].sort(strongestFirst);
  if (naming.length === 0 || naming[0].naming < MIN_NAMING_SHARE) return null;
  const name = naming[0];
  // The named documents whose labels hold the most of the query's other label words (a year, a quarter, a
  // form): "JnJ … Q2 of FY2023 compared to Q2 of FY2022" is about the label holding q2 and 2023, not about
  // the ones holding 2022 alone. A best match over all words, not a narrowing word by word, so the result
  // does not depend on which word is taken first.
  const narrowing = input.holders.filter((set, w) => counted[w] && !name.groups.includes(w) && usable(set));
  const held = new Map([...name.holders].map((d) => [d, narrowing.filter((set) => set.has(d)).length]));
  const most = Math.max(...held.values());
  let routed = new Set([...name.holders].filter((d) => held.get(d) === most));
  // A question that names several years ("FY2023 vs FY2022") and documents of each: the latest year's
  // document reports the earlier years beside it.
  const periods = (input.years ?? []).flatMap((y, w) => (y !== null && counted[w] && !name.groups.includes(w) ? [{ y, set: input.holders[w] }] : []));
  const latest = periods.filter(({ set }) => [...routed].some((d) => set.has(d))).sort((a, b) => b.y - a.y);
  if (latest.length > 1 && latest[0].y > latest.at(-1)!.y) routed = new Set([...routed].filter((d) => latest[0].set.has(d)));
  if (routed.size > MAX_ROUTED_DOCS || routed.size >= input.docCount) return null;
  return { routed: [...routed].sort(), naming: name.naming };
}

/**
 * Initialism skeletons a query writes: tokens of 2–6 capitals, optionally joined by "&", "." or a
 * lower-case "n" ("JnJ", "J&J", "P&G", "I.B.M."), as their capitals in lower case ("jj", "pg", "ibm"),
 * each with the analysed term of the token as written (the query word group it belongs to).
 * @param query the query text
 * @returns [skeleton, token] pairs; a token is the whitespace-delimited word without surrounding punctuation
 */
export function queryInitialisms(query: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const raw of query.split(/\s+/)) {
    const i = initialismOf(raw);
    if (i) out.push([i.skeleton, i.token]);
  }
  return out;
}

/**
 * The initialism one whitespace-delimited word writes (queryInitialisms), or null.
 * @param raw a word of the query as written, punctuation and possessive included ("(JnJ's)")
 * @returns its skeleton ("jj") and the token within `raw` ("JnJ")
 */
export function initialismOf(raw: string): { skeleton: string; token: string } | null {
  const token = raw.replace(/^[^\p{L}\p{N}&.]+|[^\p{L}\p{N}&]+$/gu, '').replace(/['’]s$/u, '');
  if (!/^[A-Z](?:[&.]?[A-Z]|n[A-Z]){1,5}\.?$/.test(token)) return null;
  return { skeleton: token.replace(/[^A-Z]/g, '').toLowerCase(), token };
}

/**
 * The initials a label allows: for every maximal run of alphabetic words (split at anything else: digits,
 * "_", "-", "&" between words does not break a run), the first letters of its first 2…6 words. The label
 * "JOHNSON_JOHNSON_2023_8K_dated-2023-08-30" allows "jj"; "Annual Report of Johnson & Johnson" allows
 * "ar", "aro", … (a run's leading words only, so "jj" is not among them: an initialism names from the start).
 * @param label the document label (ingest/chunk-rows.ts documentLabel)
 */
export function labelInitials(label: string): string[] {
  const out = new Set<string>();
  for (const words of labelRuns(label)) {
    const initials = words.map((w) => w[0].toLowerCase()).join('');
    for (let k = 2; k <= Math.min(6, initials.length); k++) out.add(initials.slice(0, k));
  }
  return [...out];
}

/**
 * The label words an initialism stands for: the leading words of the first run (labelInitials) whose first
 * letters are the skeleton ("jj" in "JOHNSON_JOHNSON_2022_10K" → ["JOHNSON", "JOHNSON"]).
 * @param label    the document label (ingest/chunk-rows.ts documentLabel)
 * @param skeleton an initialism's capitals in lower case (queryInitialisms)
 * @returns the words as the label writes them, or null when the label does not allow the skeleton
 */
export function initialismWords(label: string, skeleton: string): string[] | null {
  for (const words of labelRuns(label)) {
    if (words.length < skeleton.length) continue;
    const lead = words.slice(0, skeleton.length);
    if (lead.map((w) => w[0].toLowerCase()).join('') === skeleton) return lead;
  }
  return null;
}

/** A label's maximal runs of alphabetic words (split at digits, letter/digit words and other punctuation). */
function labelRuns(label: string): string[][] {
  return label.split(/[^\p{L}&\s_]+|[\s_]*\b\p{L}*\d\p{L}*\b[\s_]*/u).map((run) => run.split(/[\s_&]+/).filter((w) => /^\p{L}+$/u.test(w)));
}

/**
 * The word groups a label can hold for a query: each group's terms plus its letter/digit compound's parts of
 * two or more characters. A file name writes the period apart ("MGMRESORTS_2022_10K" holds 2022) where the
 * query writes it as one compound ("FY2022" → fy2022 with parts fy, 2022).
 * @param groups the query's word groups (analyze-query.ts), parts per group (`parts`)
 */
export function labelGroups(groups: string[][], parts: string[][]): string[][] {
  return groups.map((g, w) => [...g, ...(parts[w] ?? []).filter((p) => p.length >= 2)]);
}


const RUNS = /\p{L}+|\p{Nd}+/gu;

/**
 * A label's terms with the pieces of its letter/digit compounds: each letter or digit run of two or more
 * characters and each pair of adjacent runs ("2022q4" → 2022, q4; "2023q2" → 2023, q2). The analyser keeps
 * "2022q4" whole (a one-letter part is noise in text, analysis/analyzer.ts alnumParts), but a file name
 * packs the period into one word that the query writes apart ("Q4 2022").
 * @param terms the label's analysed terms, space-separated (title-terms.ts)
 * @returns the same string with the pieces appended
 */
export function labelTermPieces(terms: string): string {
  const extra: string[] = [];
  for (const t of terms.split(' ')) {
    if (!/\p{L}/u.test(t) || !/\p{Nd}/u.test(t)) continue;
    const runs = t.match(RUNS) ?? [];
    if (runs.length < 2) continue;
    for (let i = 0; i < runs.length; i++) {
      if (runs[i].length >= 2) extra.push(runs[i]);
      if (i + 1 < runs.length && runs.length > 2) extra.push(runs[i] + runs[i + 1]);
    }
  }
  return extra.length ? `${terms} ${extra.join(' ')}` : terms;
}
