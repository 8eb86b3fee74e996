// Cross-encoder reranker over a local Hugging Face model folder in ONNX form (DESIGN.md §3 provider
// `onnx`): query and passage are tokenised together as a pair (`text_pair`, so token_type_ids mark the
// passage) and run through AutoModelForSequenceClassification. The text-classification pipeline is not
// used: it applies softmax/sigmoid per label and picks the top label, which is wrong for single-logit
// rerankers such as ms-marco MiniLM or bge-reranker. Raw logits are returned (one label: that logit;
// two labels: logit of label 1 minus label 0, i.e. the log-odds of "relevant").
import type { RerankCandidate, Reranker, RerankerInfo, RerankQuery } from './reranker.ts';
import { batches, inspectModelDir, loadTokenizer, transformers, type LocalModel } from './onnx-local.ts';

/** Pairs per forward pass. */
const BATCH = 8;
/** Longest pair in tokens (also capped by the model's own limit). */
const MAX_TOKENS = 512;
/** Passages are pre-cut to this many characters per allowed token before tokenising (≈4 chars/token). */
const CHARS_PER_TOKEN = 6;

type T = Awaited<ReturnType<typeof transformers>>;
type Tokenizer = Awaited<ReturnType<T['AutoTokenizer']['from_pretrained']>>;
type Model = Awaited<ReturnType<T['AutoModelForSequenceClassification']['from_pretrained']>>;

export class OnnxReranker implements Reranker {
  readonly info: RerankerInfo;

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly model: Model,
    readonly local: LocalModel,
  ) {
    this.info = { provider: 'onnx', model: local.name, output: 'logit' };
  }

  /**
   * Load tokenizer and ONNX session from a local folder (no network).
   * @throws Error when the folder lacks a file or the model cannot be loaded
   */
  static async open(opts: { modelDir: string }): Promise<OnnxReranker> {
    const local = inspectModelDir(opts.modelDir);
    const t = await transformers();
    const tokenizer = await loadTokenizer(t, local, MAX_TOKENS);
    const model = await t.AutoModelForSequenceClassification.from_pretrained(local.id, { dtype: local.dtype });
    return new OnnxReranker(tokenizer, model, local);
  }

  /** Relevance logits of (query, title + passage) pairs, in input order. */
  async rerank(query: RerankQuery, candidates: RerankCandidate[]): Promise<number[]> {
    const maxChars = (this.tokenizer.model_max_length as number) * CHARS_PER_TOKEN;
    const passages = candidates.map((c) => (c.title ? `${c.title}\n${c.text}` : c.text).slice(0, maxChars));
    const out: number[] = [];
    for (const batch of batches(passages, BATCH)) {
      const inputs = this.tokenizer(batch.map(() => query.text), { text_pair: batch, padding: true, truncation: true });
      const { logits } = (await this.model(inputs)) as { logits: { data: Float32Array; dims: number[] } };
      const labels = logits.dims[1] ?? 1;
      for (let b = 0; b < batch.length; b++) {
        out.push(labels >= 2 ? logits.data[b * labels + 1] - logits.data[b * labels] : logits.data[b * labels]);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await (this.model as unknown as { dispose?: () => Promise<unknown> }).dispose?.();
  }
}
