// Embedder over an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, TEI, vLLM). The
// dimension is learned from the first response unless configured; vectors are L2-normalised here so
// cosine scores are comparable across providers.
import type { NetGuard } from '../internal/net-guard.ts';
import type { EmbeddingSignature } from '../storage/namespace-index.ts';
import type { Embedder } from './embedder.ts';
import { RetryableError } from '../internal/errors.ts';
import { l2Normalise } from './vectors.ts';


export class HttpEmbedder implements Embedder {
  private dim: number;

  constructor(private readonly opts: { url: string; model: string; apiKey?: string; dimension?: number; net: NetGuard }) {
    this.dim = opts.dimension ?? 0;
  }

  get signature(): EmbeddingSignature {
    return { provider: 'http', model: this.opts.model, dimension: this.dim };
  }

  /** POST {model, input} to `${url}/v1/embeddings` (url may already end in /v1/embeddings). */
  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const url = /\/embeddings$/.test(this.opts.url) ? this.opts.url : this.opts.url.replace(/\/$/, '') + '/v1/embeddings';
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const res = await this.opts.net.fetch(url, { method: 'POST', headers, body: JSON.stringify({ model: this.opts.model, input: texts }) });
    const text = await res.body.text();
    if (res.statusCode >= 500 || res.statusCode === 429) throw new RetryableError(`embedding service answered ${res.statusCode}`);
    if (res.statusCode >= 400) throw new Error(`embedding service answered ${res.statusCode}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { data: Array<{ embedding: number[]; index?: number }> };
    const rows = [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    const vectors = rows.map((r) => l2Normalise(Float32Array.from(r.embedding)));
    if (vectors.length !== texts.length) throw new Error(`embedding service returned ${vectors.length} vectors for ${texts.length} inputs`);
    if (!this.dim) this.dim = vectors[0].length;
    if (vectors.some((v) => v.length !== this.dim)) throw new Error(`embedding dimension changed (expected ${this.dim})`);
    return vectors;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embedDocuments([text]))[0];
  }
}
