// Embedding models behind one interface. Every provider reports the signature (provider, model,
// dimension) that the namespace index records, so a mismatched model is refused (DESIGN.md §3).
import type { EmbeddingSignature } from '../storage/namespace-index.ts';

export interface Embedder {
  readonly signature: EmbeddingSignature;
  /**
   * Share (0..1) of the word tokens of `text` the model has vectors for. Word-vector models implement it;
   * subword models, which represent any text, leave it out (read as 1). The search stages ignore
   * passage-to-passage similarity (the lexical anchor) for a query the model covers poorly: a vector built
   * from the few words it knows (names, numbers) is noise.
   */
  coverage?(text: string): number;
  /**
   * Embed passages (documents side). Returns one L2-normalised vector of `signature.dimension` floats per
   * input, in input order. Empty or out-of-vocabulary text yields a zero vector, never an error.
   */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Embed one query (query side; some models use a different prompt). */
  embedQuery(text: string): Promise<Float32Array>;
}
