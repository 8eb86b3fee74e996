// Offline loading of local Hugging Face model folders through @huggingface/transformers (DESIGN.md §3:
// nothing is downloaded at run time). The library is configured once per process with
// allowRemoteModels = false and no file cache, and models are addressed by absolute folder path, so a
// missing file is an error naming the folder instead of a download attempt.
import fs from 'node:fs';
import path from 'node:path';

export type Transformers = typeof import('@huggingface/transformers');

let loaded: Promise<Transformers> | undefined;

/** The transformers.js module, configured for local-only loading. */
export function transformers(): Promise<Transformers> {
  loaded ??= import('@huggingface/transformers').then((t) => {
    t.env.allowRemoteModels = false;
    t.env.allowLocalModels = true;
    t.env.useFSCache = false;
    // Model ids are absolute folder paths (see modelId); pathJoin('/', 'abs/dir', file) = '/abs/dir/file'.
    t.env.localModelPath = '/';
    return t;
  });
  return loaded;
}

export interface LocalModel {
  /** Absolute folder. */
  dir: string;
  /** Id handed to from_pretrained (the folder path without its leading '/'). */
  id: string;
  /** Weights precision chosen from the files present: fp32 = onnx/model.onnx, q8 = onnx/model_quantized.onnx. */
  dtype: 'fp32' | 'q8';
  /** Parsed config.json. */
  config: Record<string, unknown>;
  /** Human name: config._name_or_path, else the folder name. */
  name: string;
}

/**
 * Inspect a local model folder.
 * @throws Error naming the folder when config.json, tokenizer.json or the ONNX weights are missing
 */
export function inspectModelDir(dir: string): LocalModel {
  const abs = path.resolve(dir);
  const need = (f: string) => {
    if (!fs.existsSync(path.join(abs, f))) throw new Error(`model folder ${abs} has no ${f}`);
  };
  need('config.json');
  need('tokenizer.json');
  let dtype: LocalModel['dtype'];
  if (fs.existsSync(path.join(abs, 'onnx', 'model.onnx'))) dtype = 'fp32';
  else if (fs.existsSync(path.join(abs, 'onnx', 'model_quantized.onnx'))) dtype = 'q8';
  else throw new Error(`model folder ${abs} has neither onnx/model.onnx nor onnx/model_quantized.onnx`);
  const config = JSON.parse(fs.readFileSync(path.join(abs, 'config.json'), 'utf8')) as Record<string, unknown>;
  const named = typeof config._name_or_path === 'string' && config._name_or_path ? config._name_or_path : path.basename(abs);
  return { dir: abs, id: abs.replace(/^\/+/, ''), dtype, config, name: named };
}

/** Split `items` into consecutive batches of at most `size`. */
export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Load a model folder's tokenizer with its maximum length capped at `maxTokens` and at the model's
 * `max_position_embeddings` (longer inputs are truncated, never rejected).
 */
export async function loadTokenizer(t: Transformers, local: LocalModel, maxTokens: number) {
  const tokenizer = await t.AutoTokenizer.from_pretrained(local.id);
  const maxPos = typeof local.config.max_position_embeddings === 'number' ? local.config.max_position_embeddings : maxTokens;
  tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? maxTokens, maxTokens, maxPos);
  return tokenizer;
}
