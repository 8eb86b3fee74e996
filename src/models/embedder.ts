// Embedding models behind one interface. Every provider reports the signature (provider, model,
// dimension) that the namespace index records, so a mismatched model is refused (DESIGN.md §3).
import type { EmbeddingSignature } from '../storage/namespace-index.ts';

export interface Embedder {
  readonly signature: EmbeddingSignature;
  /**
   * Embed passages (documents side). Returns one L2-normalised vector of `signature.dimension` floats per
   * input, in input order. Empty or out-of-vocabulary text yields a zero vector, never an error.
   */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Embed one query (query side; some models use a different prompt). */
  embedQuery(text: string): Promise<Float32Array>;
}
