// Configuration of the model providers beyond the embedder basics (DESIGN.md §3, §7): the reranker of the
// advanced tier and the local ONNX model folders. Parsed once at start-up by internal/config.ts; a bad
// value stops the process with a message naming the key.
//   DOCSEARCH_RERANKER               builtin (default) | onnx | http | none
//   DOCSEARCH_RERANKER_MODEL_DIR     local Hugging Face folder of a cross-encoder (onnx)
//   DOCSEARCH_RERANKER_URL           base URL of a /v1/rerank service (http); _MODEL, _API_KEY optional
//   DOCSEARCH_RERANK_DEPTH           hits reranked per search (default 50 for builtin, 30 otherwise)
//   DOCSEARCH_RERANKER_CALIBRATION   "intercept,reranker,standard" for onnx/http (bench/fit-reranker.ts)
//   DOCSEARCH_EMBEDDER_MODEL_DIR     local Hugging Face folder of an embedding model (DOCSEARCH_EMBEDDER=onnx)
//   DOCSEARCH_EMBEDDER_QUERY_PREFIX / _DOCUMENT_PREFIX  text prepended before embedding (e5: "query: ")
import fs from 'node:fs';
import path from 'node:path';
import type { RerankCalibration } from './reranker.ts';

export type RerankerProvider = 'builtin' | 'onnx' | 'http' | 'none';

export interface RerankerConfig {
  provider: RerankerProvider;
  modelDir?: string;
  url?: string;
  model?: string;
  apiKey?: string;
  /** Hits reranked per search; undefined = the provider's default. */
  depth?: number;
  calibration?: RerankCalibration;
}

type Env = Record<string, string | undefined>;

/** A model folder must exist and hold config.json (a Hugging Face layout). @throws naming the key */
export function modelDir(env: Env, key: string): string {
  const raw = env[key];
  if (!raw) throw new Error(`config: ${key} is required`);
  const dir = path.resolve(raw);
  if (!fs.existsSync(path.join(dir, 'config.json'))) {
    throw new Error(`config: ${key} must be a local Hugging Face model folder with config.json, got "${raw}"`);
  }
  return dir;
}

function calibration(raw: string | undefined): RerankCalibration | undefined {
  if (!raw) return undefined;
  const parts = raw.split(',').map((s) => Number(s.trim()));
  if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x))) {
    throw new Error(`config: DOCSEARCH_RERANKER_CALIBRATION must be three numbers "intercept,reranker,standard", got "${raw}"`);
  }
  return { intercept: parts[0], reranker: parts[1], standard: parts[2] };
}

/**
 * Parse the reranker settings.
 * @throws Error naming the key for an unknown provider, a missing model folder or URL, a bad number
 */
export function parseRerankerConfig(env: Env): RerankerConfig {
  const provider = (env.DOCSEARCH_RERANKER || 'builtin') as RerankerProvider;
  if (!['builtin', 'onnx', 'http', 'none'].includes(provider)) {
    throw new Error(`config: DOCSEARCH_RERANKER must be builtin, onnx, http or none, got "${provider}"`);
  }
  let depth: number | undefined;
  if (env.DOCSEARCH_RERANK_DEPTH) {
    depth = Number(env.DOCSEARCH_RERANK_DEPTH);
    if (!Number.isInteger(depth) || depth < 1 || depth > 500) {
      throw new Error(`config: DOCSEARCH_RERANK_DEPTH must be an integer in 1..500, got "${env.DOCSEARCH_RERANK_DEPTH}"`);
    }
  }
  const out: RerankerConfig = { provider, depth, calibration: calibration(env.DOCSEARCH_RERANKER_CALIBRATION) };
  if (provider === 'onnx') out.modelDir = modelDir(env, 'DOCSEARCH_RERANKER_MODEL_DIR');
  if (provider === 'http') {
    if (!env.DOCSEARCH_RERANKER_URL || !/^https?:\/\//.test(env.DOCSEARCH_RERANKER_URL)) {
      throw new Error(`config: DOCSEARCH_RERANKER_URL must be an http(s) URL when DOCSEARCH_RERANKER=http, got "${env.DOCSEARCH_RERANKER_URL ?? ''}"`);
    }
    out.url = env.DOCSEARCH_RERANKER_URL;
    out.model = env.DOCSEARCH_RERANKER_MODEL || undefined;
    out.apiKey = env.DOCSEARCH_RERANKER_API_KEY || undefined;
  }
  return out;
}

/** ONNX embedder settings (only read when DOCSEARCH_EMBEDDER=onnx). @throws naming the key */
export function parseOnnxEmbedderConfig(env: Env): { modelDir: string; queryPrefix?: string; documentPrefix?: string } {
  return {
    modelDir: modelDir(env, 'DOCSEARCH_EMBEDDER_MODEL_DIR'),
    queryPrefix: env.DOCSEARCH_EMBEDDER_QUERY_PREFIX || undefined,
    documentPrefix: env.DOCSEARCH_EMBEDDER_DOCUMENT_PREFIX || undefined,
  };
}
