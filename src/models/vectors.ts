// Vector helpers shared by the embedding providers: every provider returns L2-normalised vectors so
// cosine similarity is a dot product and scores are comparable across providers (DESIGN.md §3).

/**
 * L2-normalise `v` in place and return it; a zero vector stays zero.
 * @param v vector of any dimension (Float32Array)
 */
export function l2Normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}
