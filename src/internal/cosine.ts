// Cosine similarity of two embedding vectors, shared by storage (the vector retriever's exact rescoring,
// storage/lance-index.ts) and search (the lexical-anchor feature, search/stages/anchor.ts).

/**
 * Cosine similarity of two vectors of equal length; null when either is all zeros (undefined angle) or
 * the lengths differ.
 */
export function cosine(a: Float32Array, b: Float32Array): number | null {
  if (a.length !== b.length) return null;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return null;
  return dot / Math.sqrt(na * nb);
}
