// Embedder over a local Hugging Face model folder in ONNX form (DESIGN.md §3 provider `onnx`), run with
// @huggingface/transformers + onnxruntime-node, fully offline (onnx-local.ts). Pooling follows the
// sentence-transformers folder layout: 1_Pooling/config.json chooses CLS or mean pooling (mean when
// absent); a model that outputs `sentence_embedding` is used as is. Vectors are L2-normalised.
// Optional text prefixes serve models trained with them (e5: "query: " / "passage: ").
import fs from 'node:fs';
import path from 'node:path';
import type { EmbeddingSignature } from '../storage/namespace-index.ts';
import type { Embedder } from './embedder.ts';
import { batches, inspectModelDir, loadTokenizer, transformers, type LocalModel } from './onnx-local.ts';
import { l2Normalise } from './vectors.ts';

/** Passages per forward pass. */
const BATCH = 16;
/** Longest input in tokens (also capped by the model's own limit). */
const MAX_TOKENS = 512;

type Tokenizer = Awaited<ReturnType<Awaited<ReturnType<typeof transformers>>['AutoTokenizer']['from_pretrained']>>;
type Model = Awaited<ReturnType<Awaited<ReturnType<typeof transformers>>['AutoModel']['from_pretrained']>>;
interface OutTensor { data: Float32Array; dims: number[] }

export interface OnnxEmbedderOptions {
  modelDir: string;
  queryPrefix?: string;
  documentPrefix?: string;
}

/** 'cls' or 'mean' from a sentence-transformers 1_Pooling/config.json (mean when there is none). */
export function poolingMode(dir: string): 'cls' | 'mean' {
  const file = path.join(dir, '1_Pooling', 'config.json');
  if (!fs.existsSync(file)) return 'mean';
  const cfg = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  return cfg.pooling_mode_cls_token === true ? 'cls' : 'mean';
}

export class OnnxEmbedder implements Embedder {
  readonly signature: EmbeddingSignature;

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly model: Model,
    private readonly local: LocalModel,
    private readonly pooling: 'cls' | 'mean',
    dimension: number,
    private readonly opts: OnnxEmbedderOptions,
  ) {
    this.signature = { provider: 'onnx', model: local.name, dimension };
  }

  /**
   * Load the tokenizer and the ONNX session, and embed one probe text to learn the dimension.
   * @throws Error when the folder lacks a file or the model cannot run
   */
  static async open(opts: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    const local = inspectModelDir(opts.modelDir);
    const t = await transformers();
    const tokenizer = await loadTokenizer(t, local, MAX_TOKENS);
    const model = await t.AutoModel.from_pretrained(local.id, { dtype: local.dtype });
    const probe = new OnnxEmbedder(tokenizer, model, local, poolingMode(local.dir), 0, opts);
    const [v] = await probe.forward(['dimension probe']);
    return new OnnxEmbedder(tokenizer, model, local, probe.pooling, v.length, opts);
  }

  /** Folder and precision the model was loaded from (logs, benchmarks). */
  get source(): { dir: string; dtype: string; pooling: string } {
    return { dir: this.local.dir, dtype: this.local.dtype, pooling: this.pooling };
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return this.embed(texts, this.opts.documentPrefix ?? '');
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embed([text], this.opts.queryPrefix ?? ''))[0];
  }

  /** Empty texts get the zero vector (Embedder contract); the rest run in batches. */
  private async embed(texts: string[], prefix: string): Promise<Float32Array[]> {
    const out: Float32Array[] = texts.map(() => new Float32Array(this.signature.dimension));
    const todo = texts.map((t, i) => ({ t: t.trim(), i })).filter((x) => x.t.length > 0);
    for (const batch of batches(todo, BATCH)) {
      const vecs = await this.forward(batch.map((x) => prefix + x.t));
      batch.forEach((x, k) => { out[x.i] = vecs[k]; });
    }
    return out;
  }

  private async forward(texts: string[]): Promise<Float32Array[]> {
    const inputs = this.tokenizer(texts, { padding: true, truncation: true });
    const outputs = (await this.model(inputs)) as Record<string, OutTensor>;
    if (outputs.sentence_embedding) {
      const { data, dims } = outputs.sentence_embedding;
      return texts.map((_, b) => l2Normalise(Float32Array.from(data.subarray(b * dims[1], (b + 1) * dims[1]))));
    }
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings ?? Object.values(outputs)[0];
    const [batch, seq, dim] = hidden.dims;
    const mask = (inputs.attention_mask as { data: BigInt64Array }).data;
    const vecs: Float32Array[] = [];
    for (let b = 0; b < batch; b++) {
      const v = new Float32Array(dim);
      if (this.pooling === 'cls') {
        v.set(hidden.data.subarray(b * seq * dim, b * seq * dim + dim));
      } else {
        let n = 0;
        for (let s = 0; s < seq; s++) {
          if (mask[b * seq + s] === 0n) continue;
          n++;
          const base = (b * seq + s) * dim;
          for (let k = 0; k < dim; k++) v[k] += hidden.data[base + k];
        }
        if (n > 0) for (let k = 0; k < dim; k++) v[k] /= n;
      }
      vecs.push(l2Normalise(v));
    }
    return vecs;
  }
}
