// A relevance model fitted for this deployment (DOCSEARCH_RELEVANCE_MODEL): the standard tier's weights
// belong to the embedder and analyser they were fitted with (relevance-model.ts), and the shipped ones to
// the builtin GloVe embedder. A deployment that embeds with another model (onnx, http) refits them on the
// same training queries with `npx tsx bench/fit-relevance.ts --collect --out FILE` and points this key at
// the file. Parsed and checked once at start-up; a bad file stops the process with a message naming the key.
import fs from 'node:fs';
import type { EmbeddingSignature } from '../storage/namespace-index.ts';
import { RELEVANCE_FEATURES, type RelevanceModel } from './stages/relevance-model.ts';

/** The file's `format` value; a file of another format is refused rather than misread. */
export const RELEVANCE_MODEL_FORMAT = 'docsearch-relevance-model/1';

const KEY = 'DOCSEARCH_RELEVANCE_MODEL';

/** A parsed model file: the model, its fallback for hits without phrase-pair coverage, the embedder it was fitted with. */
export interface RelevanceModelFile {
  model: RelevanceModel;
  /** Scores hits whose phrase-pair coverage is unknown (score.ts modelFor); the model itself when the file has none. */
  fallback: RelevanceModel;
  /** Embedder the weights were fitted with; null = not recorded (no check at start-up). */
  embedder: EmbeddingSignature | null;
}

function fail(origin: string, what: string): never {
  throw new Error(`config: ${KEY} (${origin}): ${what}`);
}

function parseModel(v: unknown, origin: string, field: string): RelevanceModel {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(origin, `${field} must be an object {intercept, weights, source}`);
  const m = v as Record<string, unknown>;
  if (typeof m.intercept !== 'number' || !Number.isFinite(m.intercept)) fail(origin, `${field}.intercept must be a finite number`);
  if (typeof m.weights !== 'object' || m.weights === null || Array.isArray(m.weights)) fail(origin, `${field}.weights must be an object of feature → weight`);
  const weights: RelevanceModel['weights'] = {};
  const known = RELEVANCE_FEATURES as readonly string[];
  for (const [name, w] of Object.entries(m.weights as Record<string, unknown>)) {
    // Only the absolute features: a score must not depend on what the best hit scored.
    if (!known.includes(name)) fail(origin, `${field}.weights.${name} is not a feature the service computes (one of ${known.join(', ')})`);
    if (typeof w !== 'number' || !Number.isFinite(w)) fail(origin, `${field}.weights.${name} must be a finite number`);
    weights[name as (typeof RELEVANCE_FEATURES)[number]] = w;
  }
  if (Object.keys(weights).length === 0) fail(origin, `${field}.weights must weigh at least one feature`);
  if (typeof m.source !== 'string' || m.source.trim() === '') fail(origin, `${field}.source must say where the weights come from`);
  return { intercept: m.intercept, weights, source: m.source };
}

function parseSignature(v: unknown, origin: string): EmbeddingSignature | null {
  if (v === undefined || v === null) return null;
  const s = v as Record<string, unknown>;
  if (typeof s !== 'object' || typeof s.provider !== 'string' || typeof s.model !== 'string' || !Number.isInteger(s.dimension)) {
    fail(origin, 'embedder must be {provider, model, dimension} (the embedder the weights were fitted with)');
  }
  return { provider: s.provider, model: s.model, dimension: s.dimension as number };
}

/**
 * Parse a relevance model file (JSON: `{format, model, fallback?, embedder?}`, as bench/fit-relevance.ts
 * --out writes it).
 * @param text   the file's contents
 * @param origin where it came from (the path), for the error message
 * @returns the model, its fallback (the model itself when absent) and the recorded embedder (or null)
 * @throws Error naming DOCSEARCH_RELEVANCE_MODEL: not JSON, another format, a weight on a feature the service
 *         does not compute or on a relative one, a non-finite number, no provenance
 */
export function parseRelevanceModelFile(text: string, origin: string): RelevanceModelFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    fail(origin, `not JSON (${(err as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(origin, 'must be a JSON object');
  const f = json as Record<string, unknown>;
  if (f.format !== RELEVANCE_MODEL_FORMAT) fail(origin, `format must be "${RELEVANCE_MODEL_FORMAT}", got ${JSON.stringify(f.format)}`);
  const model = parseModel(f.model, origin, 'model');
  const fallback = f.fallback === undefined ? model : parseModel(f.fallback, origin, 'fallback');
  return { model, fallback, embedder: parseSignature(f.embedder, origin) };
}

/**
 * Read and parse the file DOCSEARCH_RELEVANCE_MODEL names (start-up only: synchronous).
 * @throws Error naming the key when the file cannot be read or does not parse (parseRelevanceModelFile)
 */
export function loadRelevanceModelFile(file: string): RelevanceModelFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    fail(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseRelevanceModelFile(text, file);
}

/**
 * Refuse a model fitted with another embedder than the one configured: its dense features (cos, ann_rr,
 * anchor_cos, dense_off) would mean something else.
 * @throws Error naming DOCSEARCH_RELEVANCE_MODEL and both embedders on a mismatch
 */
export function checkRelevanceModelEmbedder(file: RelevanceModelFile, embedder: EmbeddingSignature): void {
  const e = file.embedder;
  if (!e) return;
  if (e.provider !== embedder.provider || e.model !== embedder.model || e.dimension !== embedder.dimension) {
    throw new Error(`config: ${KEY} was fitted with the embedder ${e.provider}/${e.model} (${e.dimension}-d), but the configured embedder is ${embedder.provider}/${embedder.model} (${embedder.dimension}-d): refit it (bench/fit-relevance.ts --collect --out FILE) or unset the key`);
  }
}
