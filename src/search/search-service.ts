// The retrieval pipeline of docsearch (DESIGN.md §2): a chain of plain stage functions
//   scope ∥ short forms (their long forms, stages/short-forms.ts) -> analyse query -> retrieve (vector ∥ BM25)
//   -> visibility -> fuse (RRF) -> lexical-anchor cosine -> group into hits -> relevance score
//   -> route (documents the query names, route-search.ts) -> [advanced tier: rerank] -> thresholds and
//   near-duplicates -> expand (lazily, best first) -> token budget -> widen -> render
// composed here for POST /docsearch/search and /docsearch/searchInDoc. No Fastify in here.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { AppError } from '../internal/errors.ts';
import { initAnalysis } from '../analysis/analyzer.ts';
import { countTokens } from '../analysis/token-count.ts';
import type { Embedder } from '../models/embedder.ts';
import type { ControlPlane } from '../storage/db.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { assetsForCitedDocs, type CitedDoc } from '../ingest/assets/search-assets.ts';
import type { IndexHit, NamespaceIndex } from '../storage/namespace-index.ts';
import type { RelevanceModel } from './stages/relevance-model.ts';
import { DeletingDocsCache, dominantLanguage, resolveScope, visibleDocs, type AttributeFilterSource, type VisibleDoc } from './doc-filters.ts';
import { initEnglishForms } from '../analysis/english-forms.ts';
import { analyseQuery, denseQueryText, type AnalysedQuery } from './stages/analyze-query.ts';
import { admissiblePrefix, admitWithinBudget, clampBudget, type BudgetItem, type BudgetResult } from './stages/budget.ts';
import { DEFAULT_EXPAND_TIGHTNESS, expandRegions } from './stages/expand.ts';
import { queryStats } from './stages/fuse.ts';
import { denseCoverageOk, queryRankOptions, rankStandard } from './stages/standard-rank.ts';
import { chunkTokens, fillText, fitChunks, hydrateChunks, pagesOf, variantChunks } from './stages/hit-content.ts';
import { renderContext, renderPieces, type RenderHit } from './stages/render.ts';
import { fitHeadings, HeaderTokenCache } from './stages/context-tokens.ts';
import { lexicalQueryOf, retrieve, type LexicalQuery } from './stages/retrieve.ts';
import { OutlineCache, withNamedSections } from './section-search.ts';
import { withLongForms } from './stages/short-forms.ts';
import { lookupAbbreviations } from '../storage/abbreviation-store.ts';
import { TitleTermsCache } from './stages/title-terms.ts';
import { LabelIndex } from './label-index.ts';
import { routedRegions, type RouteDeps } from './route-search.ts';
import { nameInitialisms } from './stages/identity-forms.ts';
import { widenHits } from './stages/widen.ts';
import { applyThresholds } from './stages/score.ts';
import { dropNearDuplicates } from './stages/near-duplicates.ts';
import { rerankDepth, rerankQueryTerms, rerankRegions } from './stages/rerank.ts';
import type { ConfiguredReranker } from '../models/create-reranker.ts';
import type { SearchStage } from '../internal/metrics.ts';
import { resolveMode, searchUnits } from './units.ts';
import { UNDETERMINED_LANG, type JsonHit, type QueryStats, type Region, type RetrievalContextResponse, type RetrievalTier, type SearchJsonResponse, type SearchRequest } from './types.ts';

/** Spec default of `min_relevance`. */
export const DEFAULT_MIN_RELEVANCE = 0.3;
/** How long the per-project fallback stemming language is cached. */
const LANG_CACHE_MS = 60_000;
/** Projects whose dominant language is kept (an entry is a few dozen bytes; a miss is one indexed query). */
const LANG_CACHE_PROJECTS = 10_000;

export interface SearchDeps {
  cp: ControlPlane;
  index: NamespaceIndex;
  embedder: Embedder;
  logger?: Logger;
  /** Typed-attribute prefilters. Without it, any attribute condition matches nothing. */
  attributes?: AttributeFilterSource;
  /** Blob store holding extracted figures/tables, for `return_assets`. */
  blobs?: BlobStore;
  /** Reranker of the advanced tier; null/absent = advanced requests answer `standard`. */
  reranker?: ConfiguredReranker | null;
  /** Told how long each pipeline stage took, in seconds (Prometheus). */
  onStage?: (stage: SearchStage, seconds: number) => void;
  /** The standard tier's relevance model and its no-pairs fallback (DOCSEARCH_RELEVANCE_MODEL); absent = shipped. */
  relevance?: { model: RelevanceModel; fallback: RelevanceModel };
}

export interface SearchContext {
  projectId: string;
  namespace: string;
}

/** What SearchService.rank() returns. */
export interface Ranked {
  regions: Region[];
  /** Null when the scope matched nothing (no retrieval ran). */
  stats: QueryStats | null;
  analysed: AnalysedQuery;
  docs: Map<string, VisibleDoc>;
  /** The query as ranked: the request's, with defined short forms followed by their long forms. */
  query: string;
}

interface Outcome {
  /** `cut`: the hit's chunks were cut to fit max_tokens (their token_count is an estimate). */
  hits: Array<{ region: Region; doc: VisibleDoc; chunks: ReturnType<typeof variantChunks>; cut: boolean }>;
  dropped: number;
  detectedLang: string | null;
  /** Tier actually used (advanced falls back to standard when the reranker fails). */
  mode: RetrievalTier;
}

export class SearchService {
  private readonly deps: SearchDeps;
  /** Dominant document language per project; bounded so memory follows the projects searched, not all of them. */
  private readonly langCache = new LRUCache<string, { lang: string | null; at: number }>({ max: LANG_CACHE_PROJECTS });
  /** Deleting documents per project, reused for 1 s (visibility itself is checked uncached per search). */
  private readonly deleting: DeletingDocsCache;
  /** Estimated tokens of each document's `<doc>` header (depends on its id and title only). */
  private readonly headerTokens = new HeaderTokenCache();
  /** Analysed document titles for the `title_cov` feature (stages/title-terms.ts). */
  private readonly titleTerms = new TitleTermsCache();
  /** Labels of every visible document per project, for document routing (route-search.ts). */
  private readonly labels: LabelIndex;
  /** Documents' outlines, for the sections a query names (section-search.ts). */
  private readonly outlines: OutlineCache;

  constructor(deps: SearchDeps) {
    this.deps = deps;
    this.deleting = new DeletingDocsCache(deps.cp);
    this.labels = new LabelIndex(deps.cp);
    this.outlines = new OutlineCache(deps.index);
  }

  /**
   * Run one search.
   * @param ctx   the project and its namespace
   * @param req   validated request body (search or searchInDoc)
   * @param opts.inDoc true for /searchInDoc (doc_filter is then required and non-empty; the schema checks)
   * @returns RetrievalContext for format prompt_ready (default), SearchResponse for json
   * @throws AppError document_not_found (404) when doc_filter names no visible document
   */
  async search(ctx: SearchContext, req: SearchRequest, opts: { inDoc: boolean }): Promise<RetrievalContextResponse | SearchJsonResponse> {
    const { mode: tier, reason } = resolveMode(req, Boolean(this.deps.reranker));
    if (reason) this.deps.logger?.info({ projectId: ctx.projectId, requested: 'advanced', mode: tier }, reason);
    const out = await this.run(ctx, req, opts, tier);
    const mode = out.mode;
    if (req.format === 'json') {
      const results: JsonHit[] = out.hits.map(({ region, doc, chunks }) => ({
        doc_id: doc.doc_id,
        content: chunks.map((c) => c.content.trim()).join('\n\n'),
        title: doc.title,
        canonical_url: doc.canonical_url,
        pages: pagesOf(chunks),
        chunk_indices: chunks.map((c) => c.chunk_index),
        score: region.score,
        scores: { ...region.signals },
      }));
      // The contract types SearchResponse.detected_lang as a string (only RetrievalContext allows null).
      const detectedLang = out.detectedLang ?? UNDETERMINED_LANG;
      return { results, query: req.query, namespace: ctx.namespace, result_count: results.length, results_dropped: out.dropped, detected_lang: detectedLang };
    }
    const renderHits: RenderHit[] = out.hits.map(({ doc, chunks }) => ({ docId: doc.doc_id, title: doc.title, chunks }));
    // Section-heading lines as far as the target leaves room for them — or max, for a lone hit the budget let
    // past the target (stages/budget.ts); several hits whose rendered content passes the target by the
    // estimates' error keep no heading past it. tokens exactly countTokens(context), from the stored
    // per-chunk counts (a cut hit's chunks excepted).
    const budget = clampBudget(req.target_tokens, req.max_tokens);
    const ceiling = out.hits.length === 1 ? budget.max : budget.target;
    const { context, tokens } = fitHeadings(renderPieces(renderHits), new Set(out.hits.flatMap((h) => (h.cut ? h.chunks : []))), budget.target, ceiling);
    // Figures and tables of the cited documents (spec: only when return_assets is true and assets exist).
    const cited: CitedDoc[] = out.hits.map(({ doc, chunks }) => ({ docId: doc.doc_id, pages: pagesOf(chunks), content: chunks.map((c) => c.content).join('\n') }));
    const assets = req.return_assets && this.deps.blobs && cited.length ? await assetsForCitedDocs(this.deps.blobs, ctx.projectId, cited) : undefined;
    return {
      context,
      query: req.query,
      namespace: ctx.namespace,
      result_count: out.hits.length,
      tokens_estimated: tokens,
      results_dropped: out.dropped,
      detected_lang: out.detectedLang,
      mode,
      search_units: searchUnits(mode, tokens),
      ...(assets ? { assets } : {}),
    };
  }

  /**
   * The standard tier's ranking of one request, before thresholds, reranking and expansion: scope,
   * analysis, retrieval, visibility and stages/standard-rank.ts. Used by run() and by the scripts that fit
   * the relevance model on exactly what the service scores (bench/fit-relevance.ts).
   * @param withText true = the candidates carry their text (the reranker reads it); else they come without
   * @returns scored regions best first (empty when the scope matches nothing), the query statistics as
   *          scored, the query analysis and the visible documents of the candidates
   * @throws AppError document_not_found (404) when doc_filter names no visible document
   */
  async rank(ctx: SearchContext, req: SearchRequest, withText = false): Promise<Ranked> {
    const { cp, index, embedder } = this.deps;
    await Promise.all([initAnalysis(), initEnglishForms()]);
    const timed = this.stopwatch();
    // Short forms the project's documents define get their long forms (stages/short-forms.ts), read while the
    // scope is resolved; a query without a short form reads nothing.
    const [scope, longForms] = await Promise.all([
      resolveScope(cp, ctx.projectId, req, this.deps.attributes, this.deleting),
      withLongForms(req.query, (keys) => lookupAbbreviations(cp.db, ctx.projectId, keys), req.doc_filter || undefined),
    ]);
    // Inside one document, an initialism of its own name is that name (stages/identity-forms.ts).
    const query = scope.label !== undefined ? nameInitialisms(longForms.text, scope.label, longForms.defined) : longForms.text;
    timed('scope');
    // The query is analysed inside retrieve, while the ANN query runs (stages/retrieve.ts), once.
    const fallback = this.fallbackLanguage(ctx.projectId);
    fallback.catch(() => undefined); // handled where analyse() awaits it; never an unhandled rejection meanwhile
    let analysis: Promise<AnalysedQuery> | undefined;
    const analyse = () => (analysis ??= fallback.then((lang) => analyseQuery(query, lang)));
    if (scope.matchNothing) return { regions: [], stats: null, analysed: await analyse(), docs: new Map(), query };
    // 'embed' reports the embedding's own time; 'retrieve' the time from here until both lists are in
    // (which includes the embedding and the query analysis).
    // The query vector is the question's when the query wraps a question in instructions (denseQueryText).
    const denseText = denseQueryText(query);
    let vector: Promise<Float32Array> | undefined;
    const embed = () => (vector ??= (async () => {
      const start = performance.now();
      const v = await embedder.embedQuery(denseText);
      this.deps.onStage?.('embed', (performance.now() - start) / 1000);
      return v;
    })());
    let lexicalQuery: Promise<LexicalQuery> | undefined;
    const lexical = () => (lexicalQuery ??= analyse().then(lexicalQueryOf));
    const [got, chunkCount] = await Promise.all([
      retrieve(index, ctx.namespace, { embed, lexical, text: withText }, scope.filter),
      this.chunkCount(ctx.namespace),
    ]);
    const analysed = await analyse();
    timed('retrieve');
    const docs = await visibleDocs(cp, ctx.projectId, [...(got.vector ?? []), ...(got.bm25 ?? [])].map((h) => h.chunk.doc_id));
    const keep = (hits: IndexHit[] | null) => hits && hits.filter((h) => docs.has(h.chunk.doc_id));
    const vecHits = keep(got.vector);
    const bm25Hits = keep(got.bm25);
    // A BM25 list shorter than the limit returned every lexical match: absent chunks have BM25 0.
    const base = queryStats(vecHits, bm25Hits, (got.bm25?.length ?? 0) < got.limit, analysed.termCount, chunkCount);
    const rankOptions = { ...queryRankOptions(analysed, denseCoverageOk(embedder, denseText)), ...this.deps.relevance };
    const titles = this.titleTerms.of(docs, analysed.stemLang);
    const ranked = rankStandard(vecHits, bm25Hits, base, { ...rankOptions, titles });
    // A search in one document also searches the sections the query names (section-search.ts); a query
    // that names documents by their identity is searched inside them (route-search.ts), the same way.
    const one = scope.filter.docIds?.length === 1 ? scope.filter.docIds[0] : undefined;
    if (one !== undefined && docs.has(one)) {
      const regions = await withNamedSections(index, this.outlines, {
        namespace: ctx.namespace, docId: one, filter: scope.filter, analysed, labelTerms: new Set((titles.get(one) ?? '').split(' ')),
        embed, lexical, chunkCount, rankOptions: { ...rankOptions, titles }, regions: ranked.regions, minRelevance: req.min_relevance ?? DEFAULT_MIN_RELEVANCE,
      });
      timed('rank');
      return { regions, stats: ranked.stats, analysed, docs, query };
    }
    const regions = await routedRegions(this.routeDeps(), {
      projectId: ctx.projectId, namespace: ctx.namespace, query, scope, analysed, vector: vecHits, bm25: bm25Hits, regions: ranked.regions,
      docs, chunkCount, embed, lexical, rankOptions, minRelevance: req.min_relevance ?? DEFAULT_MIN_RELEVANCE, defined: longForms.defined,
    });
    timed('rank');
    return { regions, stats: ranked.stats, analysed, docs, query };
  }

  /** What document routing reads (route-search.ts). */
  private routeDeps(): RouteDeps {
    return { cp: this.deps.cp, index: this.deps.index, embedder: this.deps.embedder, labels: this.labels, titleTerms: this.titleTerms, outlines: this.outlines };
  }

  /** A function that reports the time since the previous report (or since now) as `stage` to deps.onStage. */
  private stopwatch(): (stage: SearchStage) => void {
    let lap = performance.now();
    return (stage) => {
      const now = performance.now();
      this.deps.onStage?.(stage, (now - lap) / 1000);
      lap = now;
    };
  }

  private async run(ctx: SearchContext, req: SearchRequest, opts: { inDoc: boolean }, tier: RetrievalTier): Promise<Outcome> {
    const { index } = this.deps;
    if (opts.inDoc && !req.doc_filter) throw new AppError('validation_failed', 'body.doc_filter: must be a non-empty document id for searchInDoc.', { field: 'body.doc_filter' });
    const rr = this.deps.reranker;
    const { regions: ranked, stats, analysed, docs, query } = await this.rank(ctx, req, tier === 'advanced' && Boolean(rr));
    const timed = this.stopwatch();
    let mode = tier;
    const empty = (): Outcome => ({ hits: [], dropped: 0, detectedLang: analysed.detectedLang, mode });
    if (!stats) return empty();
    let regions = ranked;
    if (mode === 'advanced' && rr) {
      // Rows without text (none when retrieval read it, as it does for this tier) get it for the reranker.
      await fillText(index, ctx.namespace, regions.slice(0, rerankDepth(rr.depth)).flatMap((r) => r.chunks));
      try {
        regions = await rerankRegions(rr.reranker, query, regions, stats, {
          lang: analysed.stemLang, depth: rr.depth, calibration: rr.calibration, titleOf: (id) => docs.get(id)?.title ?? '',
          terms: rerankQueryTerms(analysed.groups, stats),
        });
      } catch (err) {
        mode = 'standard';
        this.deps.logger?.warn({ err, projectId: ctx.projectId, reranker: rr.reranker.info }, 'reranker failed; answered with the standard tier');
      }
    }
    // Copies of a better hit in another document (a paragraph every year's filing repeats) are left out.
    // In the prompt-ready context only: a ranked JSON list keeps every document's copy (an application may
    // list, filter or attribute them by document), while a model's context gains nothing from a second copy.
    const thresholded = applyThresholds(regions, req.min_relevance ?? DEFAULT_MIN_RELEVANCE, req.min_top_relevance);
    const { kept: passing, dropped: copies } = req.format === 'json' ? { kept: thresholded, dropped: 0 } : dropNearDuplicates(thresholded);
    timed('rerank');
    if (passing.length === 0) return empty();

    const budget = clampBudget(req.target_tokens, req.max_tokens);
    const tightness = req.expand_tightness ?? DEFAULT_EXPAND_TIGHTNESS;
    const claimed = new Map<string, Set<number>>();
    for (const r of passing) {
      const own = claimed.get(r.docId) ?? new Set<number>();
      for (let i = r.from; i <= r.to; i++) own.add(i);
      claimed.set(r.docId, own);
    }
    // Header estimates looked up once per document of this search (toItem runs for every passing region on
    // each admission round: ≈ 0.3 ms of key building and hashing a filled search when looked up each time).
    const headers = new Map<string, number>();
    const headerOf = (docId: string): number => {
      let h = headers.get(docId);
      if (h === undefined) headers.set(docId, (h = this.headerTokens.get(docs.get(docId)!)));
      return h;
    };
    const toItem = (r: Region): BudgetItem => ({ docId: r.docId, score: r.score, tokens: chunkTokens(r.chunks), coreTokens: chunkTokens(variantChunks(r, 'core')), docOverhead: headerOf(r.docId) });
    // Expand, in one engine read, every hit the budget could admit (admissiblePrefix over the estimates
    // before expansion, which are lower bounds); hits past it are passed unexpanded: admission never
    // reaches them. Should one be admitted all the same
    // (estimates off because a document changed meanwhile), it is expanded and the decision repeated.
    let expanded = 0;
    let result: BudgetResult;
    for (;;) {
      const upto = Math.max(expanded + 1, admissiblePrefix(passing.map(toItem), budget.target));
      await expandRegions(index, ctx.namespace, passing.slice(expanded, upto), claimed, tightness);
      expanded = upto;
      result = admitWithinBudget(passing.map(toItem), budget);
      if (result.admitted.every((a) => a.index < expanded)) break;
    }
    timed('expand');
    const hits = result.admitted.map((a) => {
      const region = passing[a.index];
      const whole = a.variant === 'expanded' && a.truncateTo === undefined;
      return {
        region, doc: docs.get(region.docId)!, chunks: variantChunks(region, a.variant), members: region.members.map((m) => m.chunk),
        docId: region.docId, whole, truncateTo: a.truncateTo, cut: a.truncateTo !== undefined,
      };
    });
    // Few strong hits leave the budget unused: widen them within their documents (stages/widen.ts).
    await widenHits(index, ctx.namespace, hits.filter((h) => h.whole), result.tokens, budget.target, tightness);
    // Expansion and widening read the layout only: one read for the text of exactly what is shown.
    await hydrateChunks(index, ctx.namespace, hits);
    for (const h of hits) {
      if (h.truncateTo !== undefined) h.chunks = fitChunks(h.chunks, h.truncateTo, budget.max, (cs) => countTokens(renderContext([{ docId: h.docId, title: h.doc.title, chunks: cs }])));
    }
    return { hits, dropped: copies + passing.length - result.admitted.length, detectedLang: analysed.detectedLang, mode };
  }

  /**
   * Chunks in the namespace (BM25's N, for score normalisation). The index caches it per table version,
   * so it follows every node's commits without a count per search.
   */
  private chunkCount(namespace: string): Promise<number> {
    return this.deps.index.countChunks(namespace);
  }

  /** The project's dominant document language (cached briefly), used to stem undetectable queries. */
  private async fallbackLanguage(projectId: string): Promise<string | null> {
    const hit = this.langCache.get(projectId);
    if (hit && Date.now() - hit.at < LANG_CACHE_MS) return hit.lang;
    const lang = await dominantLanguage(this.deps.cp, projectId);
    this.langCache.set(projectId, { lang, at: Date.now() });
    return lang;
  }
}
