// Reranker over an HTTP rerank service (DESIGN.md §3 provider `http`), through the SSRF guard (NetGuard):
//  - Jina / Cohere / vLLM shape (default; POST {url}/v1/rerank):
//      {model, query, documents: [..], top_n, return_documents: false}
//      -> {results: [{index, relevance_score}]}
//  - Hugging Face TEI shape (a URL whose path ends in "/rerank" but not "/v1/rerank", e.g. http://tei/rerank):
//      {query, texts: [..], raw_scores: false} -> [{index, score}]
// Both answers are read either way. Values are relevance in 0..1 of unknown calibration (output 'unit');
// the advanced tier combines them with the standard score (src/search/stages/rerank.ts).
import type { NetGuard } from '../internal/net-guard.ts';
import type { RerankCandidate, Reranker, RerankerInfo, RerankQuery } from './reranker.ts';

export interface HttpRerankerOptions {
  url: string;
  model?: string;
  apiKey?: string;
  net: NetGuard;
  /** Per-request timeout, ms (default 10 000). */
  timeoutMs?: number;
}

type Row = { index?: number; relevance_score?: number; score?: number };

/** Endpoint and request shape for a configured URL (see file header). */
export function rerankEndpoint(url: string): { endpoint: string; shape: 'cohere' | 'tei' } {
  const trimmed = url.replace(/\/+$/, '');
  if (/\/v1\/rerank$/.test(trimmed)) return { endpoint: trimmed, shape: 'cohere' };
  if (/\/rerank$/.test(trimmed)) return { endpoint: trimmed, shape: 'tei' };
  return { endpoint: `${trimmed}/v1/rerank`, shape: 'cohere' };
}

export class HttpReranker implements Reranker {
  readonly info: RerankerInfo;
  private readonly endpoint: string;
  private readonly shape: 'cohere' | 'tei';

  constructor(private readonly opts: HttpRerankerOptions) {
    ({ endpoint: this.endpoint, shape: this.shape } = rerankEndpoint(opts.url));
    this.info = { provider: 'http', model: opts.model ?? 'default', output: 'unit' };
  }

  /**
   * @returns one value per candidate, in input order
   * @throws Error on a non-2xx answer, a malformed body, or a result list that does not cover every input
   */
  async rerank(query: RerankQuery, candidates: RerankCandidate[]): Promise<number[]> {
    if (candidates.length === 0) return [];
    const documents = candidates.map((c) => (c.title ? `${c.title}\n${c.text}` : c.text));
    const body = this.shape === 'tei'
      ? { query: query.text, texts: documents, raw_scores: false }
      : { ...(this.opts.model ? { model: this.opts.model } : {}), query: query.text, documents, top_n: documents.length, return_documents: false };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const res = await this.opts.net.fetch(this.endpoint, { method: 'POST', headers, body: JSON.stringify(body), timeoutMs: this.opts.timeoutMs ?? 10_000 });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`rerank service answered ${res.statusCode}: ${text.slice(0, 200)}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`rerank service answered non-JSON: ${text.slice(0, 200)}`);
    }
    const rows: Row[] | undefined = Array.isArray(parsed) ? parsed : (parsed as { results?: Row[] }).results;
    if (!Array.isArray(rows)) throw new Error('rerank service answer has no results array');
    const out = new Array<number>(candidates.length).fill(Number.NaN);
    rows.forEach((r, i) => {
      const idx = typeof r.index === 'number' ? r.index : i;
      const v = typeof r.relevance_score === 'number' ? r.relevance_score : r.score;
      if (idx >= 0 && idx < out.length && typeof v === 'number') out[idx] = v;
    });
    if (out.some((v) => !Number.isFinite(v))) throw new Error(`rerank service scored ${rows.length} of ${candidates.length} documents`);
    return out;
  }
}
