// The routed part of a namespace search: when a query names documents by their identity
// (stages/route-documents.ts), each routed document is searched as `searchInDoc` searches it — its own top
// candidates from both retrievers, scored among themselves — and its regions replace the ones the namespace
// ranking gave it; every other document's regions (the named company's other years and forms, and filings
// that only share the question's topic) rank below the routed documents' passing regions. Over one
// namespace of 43 filings, a question's evidence page reached the default context for 0.43 of the questions
// over the namespace and 0.60 with `searchInDoc` on the right filing: the namespace search lost most of its
// answers to not looking inside the right filing (docs/decisions).
import type { IndexHit, NamespaceIndex } from '../storage/namespace-index.ts';
import type { ControlPlane } from '../storage/db.ts';
import { visibleDocs, type Scope, type VisibleDoc } from './doc-filters.ts';
import { LabelSet, type LabelIndex } from './label-index.ts';
import type { AnalysedQuery } from './stages/analyze-query.ts';
import { queryStats } from './stages/fuse.ts';
import { hashMatcher, termMatcher } from './stages/group-match.ts';
import { lexicalQueryOf, retrieve, RETRIEVE_LIMIT, type LexicalQuery } from './stages/retrieve.ts';
import { labelGroups, queryInitialisms, routeDocuments } from './stages/route-documents.ts';
import { namingRuns, queryWordRuns } from './stages/name-runs.ts';
import { byScore } from './stages/score.ts';
import { denseCoverageOk, MIN_SCOPE_CANDIDATES, queryRankOptions, rankStandard, type RankOptions } from './stages/standard-rank.ts';
import type { TitleTermsCache } from './stages/title-terms.ts';
import { analyze } from '../analysis/analyzer.ts';
import { withNamedSections, type OutlineCache } from './section-search.ts';
import { nameInitialisms } from './stages/identity-forms.ts';
import { analyseQuery, denseQueryText } from './stages/analyze-query.ts';
import type { Embedder } from '../models/embedder.ts';
import { documentLabel } from '../ingest/chunk-rows.ts';
import type { Region } from './types.ts';

/** What the routed search reads: the data plane, the control plane and the service's caches. */
export interface RouteDeps {
  cp: ControlPlane;
  index: NamespaceIndex;
  /** Embeds a routed document's own query (its name written out for an initialism). */
  embedder: Pick<Embedder, 'embedQuery' | 'coverage'>;
  labels: LabelIndex;
  titleTerms: TitleTermsCache;
  outlines: OutlineCache;
}

/** One namespace search's state after its ranking, as SearchService.rank holds it. */
export interface RouteRequest {
  projectId: string;
  namespace: string;
  query: string;
  scope: Scope;
  analysed: AnalysedQuery;
  /** The namespace ranking's candidates (visible documents only). */
  vector: IndexHit[] | null;
  bm25: IndexHit[] | null;
  regions: Region[];
  /** Visible documents of the candidates; routed documents are added to it. */
  docs: Map<string, VisibleDoc>;
  chunkCount: number;
  /** The query embedding and lexical query of the namespace search (memoised: no second embedding). */
  embed: () => Promise<Float32Array>;
  lexical: () => Promise<LexicalQuery>;
  /** Options of the namespace ranking (stages/standard-rank.ts), reused for each routed document. */
  rankOptions: RankOptions;
  /** The request's min_relevance: other documents are placed below the routed regions that pass it. */
  minRelevance: number;
  /** Short forms of the query that the project's documents define (stages/short-forms.ts withLongForms). */
  defined?: ReadonlySet<string>;
}

/**
 * Route a namespace search to the documents it names and merge their in-document rankings.
 * @returns the merged regions, best first (the request's own when the query names no document)
 * @throws whatever the control plane or the index throws
 */
export async function routedRegions(deps: RouteDeps, r: RouteRequest): Promise<Region[]> {
  if (r.scope.filter.docIds && r.scope.filter.docIds.length <= 1) return r.regions;
  // Beyond MAX_LABEL_DOCS the candidates' documents stand in for the namespace (label-index.ts).
  const set = (await deps.labels.get(r.projectId)) ?? new LabelSet(new Map([...r.docs].map(([id, d]) => [id, { title: d.title, filename: d.filename }])));
  // A document of few chunks is no scope to search in: its passages would cover the query whatever they
  // hold (standard-rank.ts MIN_SCOPE_CANDIDATES); such documents are never routed to.
  const scoped = scopeFilter(r.scope);
  const inScope = (id: string) => scoped(id) && (set.docs.get(id)?.chunks ?? MIN_SCOPE_CANDIDATES) >= MIN_SCOPE_CANDIDATES;
  const docCount = r.scope.filter.docIds || r.scope.filter.excludeDocIds ? [...set.docs.keys()].filter(scoped).length : set.docs.size;
  // A word names by its own terms as whole label words; it narrows by those, its compound's parts and the
  // pieces of label compounds too (route-documents.ts RouteInput).
  const names = r.analysed.groups.map((g) => new Set(g.flatMap((t) => set.naming(t, r.analysed.stemLang)).filter(inScope)));
  // The query's word groups that hold a term of these written words (analysed with `lang`).
  const groupsOf = (words: string[], lang: string | null): number[] => {
    const own = new Set(words.flatMap((word) => analyze(word, lang)));
    return r.analysed.groups.flatMap((g, w) => (g.some((t) => own.has(t)) ? [w] : []));
  };
  // An initialism the query writes ("JnJ") is held by the labels whose initials it is.
  for (const [skeleton, token] of queryInitialisms(r.query)) {
    const docs = (set.initialisms().get(skeleton) ?? []).filter(inScope);
    if (docs.length > 0) for (const w of groupsOf([token], null)) if (names[w].size === 0) for (const d of docs) names[w].add(d);
  }
  // A name written as several words that a label writes as one ("Bank of America" → BANKOFAMERICA).
  const named = namingRuns(queryWordRuns(r.query), (text) => set.naming(text, r.analysed.stemLang).filter(inScope));
  const runs = named.map(({ run, docs }, i) => ({ groups: groupsOf(run.words, r.analysed.stemLang), names: new Set(docs), joined: r.analysed.groups.length + i }));
  // Most queries name nothing: then neither the best-match words nor the candidates' holdings are computed.
  if (![...names, ...runs.map((x) => x.names)].some((n) => n.size > 0 && n.size < docCount)) return r.regions;
  const { whole, pieces } = set.terms(r.analysed.stemLang);
  const extended = labelGroups(r.analysed.groups, r.analysed.parts);
  const holders = extended.map((g, w) => new Set([...names[w], ...g.flatMap((t) => [...(whole.get(t) ?? []), ...(pieces.get(t) ?? [])]).filter(inScope)]));
  // The year each word writes ("FY2022" → 2022 by its part), for the latest-year rule among tied documents.
  const years = extended.map((g) => g.reduce<number | null>((y, t) => (/^(19|20)\d\d$/.test(t) ? Math.max(y ?? 0, Number(t)) : y), null));
  const route = routeDocuments({ names, holders, docCount, weights: r.analysed.weights, years, pool: poolHoldings([...extended, ...named.map(({ run }) => [run.text])], r.vector, r.bm25), runs });
  if (!route) return r.regions;
  const visible = await visibleDocs(deps.cp, r.projectId, route.routed);
  const routed = route.routed.filter((d) => visible.has(d));
  for (const d of routed) r.docs.set(d, visible.get(d)!);
  const inDoc = (await Promise.all(routed.map((d) => searchInDocument(deps, r, d, set.docs.get(d)?.chunks)))).flat();
  // A region both rankings found keeps the better score, as a named document's does (standard-rank.ts scopeOf).
  const global = new Map(r.regions.filter((x) => visible.has(x.docId)).map((x) => [regionKey(x), x.score]));
  for (const x of inDoc) x.score = Math.max(x.score, global.get(regionKey(x)) ?? 0);
  const routedSet = new Set(routed);
  const merged = [...r.regions.filter((x) => !routedSet.has(x.docId)), ...inDoc];
  // No other document outranks a passing routed region: the routed documents are what the query names, the
  // named company's other years and forms (siblings) only mention it, and other companies' filings share
  // only the question's topic ("COGS" written in another company's restructuring note came first for a
  // question about Microsoft's COGS). Scaled by the weakest passing routed score, so their order among
  // themselves stays and no tie with the routed regions is made (a tie would let the budget's cluster rule
  // grow the context, stages/budget.ts).
  const passing = inDoc.filter((x) => x.score >= r.minRelevance);
  if (passing.length > 0) {
    const floor = Math.min(...passing.map((x) => x.score));
    for (const x of merged) if (!routedSet.has(x.docId) && x.score >= floor) x.score *= floor;
  }
  return merged.sort(byScore);
}

/** Region identity across two rankings of one document. */
const regionKey = (x: Region): string => `${x.docId}:${x.chunksetIndex}:${x.from}`;

/** Whether a document is inside the request's document scope (doc_ids / exclude_doc_ids). */
function scopeFilter(scope: Scope): (docId: string) => boolean {
  const only = scope.filter.docIds ? new Set(scope.filter.docIds) : null;
  const not = new Set(scope.filter.excludeDocIds ?? []);
  return (id) => (!only || only.has(id)) && !not.has(id);
}

/** One routed document searched as searchInDoc searches it: its own candidates, scored among themselves. */
async function searchInDocument(deps: RouteDeps, r: RouteRequest, docId: string, chunks: number | undefined): Promise<Region[]> {
  const doc = r.docs.get(docId)!;
  const label = documentLabel(doc.title, doc.filename);
  // An initialism of the document's own name is its name in here (stages/identity-forms.ts): the query is
  // analysed, embedded and read again for this document with the name written out, as searchInDoc reads it.
  const renamed = nameInitialisms(r.query, label, r.defined);
  const own = renamed === r.query ? null : ownQuery(deps, r, renamed);
  let got = own ? null : inPool(r, docId, chunks);
  if (!got) {
    const read = await retrieve(deps.index, r.namespace, { embed: own?.embed ?? r.embed, lexical: own?.lexical ?? r.lexical }, { ...r.scope.filter, docIds: [docId] });
    got = { vector: read.vector, bm25: read.bm25, complete: (read.bm25?.length ?? 0) < read.limit };
  }
  const analysed = own?.analysed ?? r.analysed;
  const stats = queryStats(got.vector, got.bm25, got.complete, analysed.termCount, r.chunkCount);
  const titles = deps.titleTerms.of(new Map([[docId, doc]]), analysed.stemLang);
  const rankOptions = { ...r.rankOptions, ...(own?.rankOptions ?? {}), titles };
  const { regions, stats: scored } = rankStandard(got.vector, got.bm25, stats, { ...rankOptions, scoped: true });
  for (const x of regions) x.stats = scored;
  // The sections the query names in this document, searched on their own (section-search.ts).
  return withNamedSections(deps.index, deps.outlines, {
    namespace: r.namespace, docId, filter: r.scope.filter, analysed, labelTerms: new Set((titles.get(docId) ?? '').split(' ')),
    embed: own?.embed ?? r.embed, lexical: own?.lexical ?? r.lexical, chunkCount: r.chunkCount, rankOptions, regions, minRelevance: r.minRelevance,
  });
}

/** A routed document's own query (its name written out where the query writes its initialism). */
function ownQuery(deps: RouteDeps, r: RouteRequest, text: string): { analysed: AnalysedQuery; embed: () => Promise<Float32Array>; lexical: () => Promise<LexicalQuery>; rankOptions: RankOptions } {
  const analysed = analyseQuery(text, r.analysed.stemLang);
  const dense = denseQueryText(text);
  let vector: Promise<Float32Array> | undefined;
  const embed = () => (vector ??= deps.embedder.embedQuery(dense));
  const lexical = async (): Promise<LexicalQuery> => lexicalQueryOf(analysed);
  return { analysed, embed, lexical, rankOptions: queryRankOptions(analysed, denseCoverageOk(deps.embedder, dense)) };
}

/**
 * The namespace search's own candidates of a document, when they are at least half of its chunks: its
 * in-document candidates are then (nearly) the same, and no engine read is spent on them. A long filing
 * has a few of its hundreds of chunks among the namespace's candidates; a short document (a wiki page of
 * 20 chunks whose title the query names) usually has most.
 * @returns the two lists filtered to the document (namespace order) and whether the BM25 list holds every
 *          match, or null to read them from the engine
 */
function inPool(r: RouteRequest, docId: string, chunks: number | undefined): { vector: IndexHit[] | null; bm25: IndexHit[] | null; complete: boolean } | null {
  if (chunks === undefined) return null;
  const own = (hits: IndexHit[] | null) => hits && hits.filter((h) => h.chunk.doc_id === docId);
  const vector = own(r.vector), bm25 = own(r.bm25);
  const held = new Set([...(vector ?? []), ...(bm25 ?? [])].map((h) => h.chunk.chunk_index)).size;
  if (held * 2 < chunks) return null;
  // Complete as the namespace list was: a BM25 list shorter than the limit returned every match.
  return { vector, bm25, complete: (r.bm25?.length ?? 0) < RETRIEVE_LIMIT };
}

/** Which query word groups each retrieved candidate holds (its stored term hashes, else its terms). */
function poolHoldings(groups: string[][], vector: IndexHit[] | null, bm25: IndexHit[] | null): Array<{ docId: string; holds: boolean[] }> {
  const byHash = hashMatcher(groups);
  let byTerms: ReturnType<typeof termMatcher> | undefined;
  const seen = new Set<string>();
  const out: Array<{ docId: string; holds: boolean[] }> = [];
  for (const hit of [...(vector ?? []), ...(bm25 ?? [])]) {
    const key = `${hit.chunk.doc_id}:${hit.chunk.chunkset_index}:${hit.chunk.chunk_index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const holds = new Array<boolean>(groups.length).fill(false);
    if (hit.termHashes) byHash(hit.termHashes, holds);
    else if (hit.tokens) (byTerms ??= termMatcher(groups))(hit.tokens, holds);
    else continue;
    out.push({ docId: hit.chunk.doc_id, holds });
  }
  return out;
}
