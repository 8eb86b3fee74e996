// The candidate hits of BEIR queries as the real search stages produce them (analyse, retrieve
// 100 + 100, stages/standard-rank.ts), for the scripts that fit or compare relevance models
// (bench/fit-relevance.ts, bench/fusion-study.ts, bench/fit-reranker.ts). The corpus goes into a real LanceDB namespace, one
// chunk per document (title + abstract), embedded by the given embedder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyze, initAnalysis } from '../../src/analysis/analyzer.ts';
import { createBuiltinEmbedder } from '../../src/models/builtin-embedder.ts';
import { openLanceIndex } from '../../src/storage/lance-index.ts';
import { countTokens } from '../../src/analysis/token-count.ts';
import type { Embedder } from '../../src/models/embedder.ts';
import { withSearchLayout } from '../../src/ingest/chunk-rows.ts';
import type { ChunkRecord, NamespaceIndex } from '../../src/storage/namespace-index.ts';
import { analyseQuery, denseQueryText } from '../../src/search/stages/analyze-query.ts';
import { queryStats } from '../../src/search/stages/fuse.ts';
import { denseCoverageOk, rankStandard } from '../../src/search/stages/standard-rank.ts';
import { lexicalQueryOf, retrieve } from '../../src/search/stages/retrieve.ts';
import { regionInput, type FeatureInput } from '../../src/search/stages/score.ts';
import type { QueryStats, Region } from '../../src/search/types.ts';
import { repoRoot, type BeirDoc, type BeirQuery } from './beir.ts';

/** One candidate hit: its document, position in the fused (RRF) order, and what features are made of. */
export interface Candidate {
  doc: string;
  /** 0-based position in RRF order. */
  rrfRank: number;
  input: FeatureInput;
}

export interface QueryCandidates {
  stats: QueryStats;
  candidates: Candidate[];
}

/**
 * Run `fn` with the builtin embedder (its GloVe cache under `--data-dir DIR`, default .tmp/test-cache)
 * and a LanceDB index in a temp directory named after `script`, removed afterwards.
 */
export async function withScratchIndex<T>(script: string, fn: (ctx: { index: NamespaceIndex; embedder: Embedder }) => Promise<T>): Promise<T> {
  const arg = process.argv.indexOf('--data-dir');
  const modelDir = arg > 0 ? path.resolve(process.argv[arg + 1]) : path.join(repoRoot, '.tmp', 'test-cache');
  await initAnalysis();
  const embedder = await createBuiltinEmbedder({ dataDir: modelDir });
  const lanceDir = fs.mkdtempSync(path.join(os.tmpdir(), `${script}-`));
  const index = await openLanceIndex({ uri: lanceDir });
  try {
    return await fn({ index, embedder });
  } finally {
    await index.close();
    fs.rmSync(lanceDir, { recursive: true, force: true });
  }
}

/** Index `docs` (one chunk each, English analysis) into namespace `ns` and optimise it. */
export async function indexBeirCorpus(index: NamespaceIndex, embedder: Embedder, ns: string, docs: BeirDoc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 1000) {
    const part = docs.slice(i, i + 1000);
    const texts = part.map((d) => `${d.title}\n\n${d.text}`);
    const vectors = await embedder.embedDocuments(texts);
    const rows: ChunkRecord[] = withSearchLayout(part.map((d, j) => ({
      id: `${d._id}:0`, doc_id: d._id, source_job_id: 'fit', chunk_index: 0, chunkset_index: 0, page_start: 1, page_end: 1,
      heading_path: d.title, content: d.text, tokens: analyze(texts[j], 'en').join(' '), token_count: countTokens(d.text), vector: vectors[j],
    })), 'en');
    await index.addChunks(ns, rows, embedder.signature);
  }
  await index.optimize(ns);
}

/**
 * One English query through the service's standard stages without the HTTP and control-plane layers
 * (analyse, embed, retrieve 100 + 100, rankStandard with the same anchor rule as the service). Titles are
 * not looked up (no control plane here): `title_cov` is 0 for every hit, unlike the service; fitting scripts
 * that need the served score exactly use SearchService.rank (bench/fit-reranker.ts, bench/lib/train-sets.ts).
 * @returns the query statistics, the scored regions best first, and the stemming language used
 */
export async function rankQuery(index: NamespaceIndex, embedder: Embedder, ns: string, text: string, chunkCount: number): Promise<{ stats: QueryStats; regions: Region[]; lang: string | null }> {
  const a = analyseQuery(text, 'en');
  const got = await retrieve(index, ns, { embed: () => embedder.embedQuery(denseQueryText(text)), lexical: async () => lexicalQueryOf(a) }, undefined);
  const base = queryStats(got.vector, got.bm25, (got.bm25?.length ?? 0) < got.limit, a.termCount, chunkCount);
  const { regions, stats } = rankStandard(got.vector, got.bm25, base, { anchor: denseCoverageOk(embedder, denseQueryText(text)), groups: a.groups, weights: a.weights, segments: a.segments, sentences: a.sentences, pairs: a.pairs });
  return { stats, regions, lang: a.stemLang };
}

/** Run the real standard stages for each query; candidates come back in the current model's order. */
export async function collectCandidates(index: NamespaceIndex, embedder: Embedder, ns: string, queries: BeirQuery[], chunkCount: number): Promise<Map<string, QueryCandidates>> {
  const out = new Map<string, QueryCandidates>();
  for (const q of queries) {
    const { stats, regions } = await rankQuery(index, embedder, ns, q.text, chunkCount);
    out.set(q._id, { stats, candidates: regions.map((r) => ({ doc: r.docId, rrfRank: r.fusedRank - 1, input: regionInput(r) })) });
  }
  return out;
}
