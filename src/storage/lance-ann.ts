// The vector index of a namespace table: which kind it gets, when it is (re)built, and how a query is
// tuned for it (part 2; measurements in docs/performance.md "Vector index kind").
// For vectors of up to IVF_FLAT_MAX_DIM dimensions (the builtin GloVe-SIF embedder has 100) the index is
// IVF_FLAT: k-means partitions holding the exact vectors, searched in the `nprobes` nearest partitions.
// bench/ann-build.ts against the former IVF_HNSW_SQ (Lance defaults m 20, ef_construction 300, queried at
// ef 400): recall@100 0.908 → 0.950 at 100k rows in 4.9 → 4.4 ms p50, and 0.879 → 0.948 at 1M in 10.5 →
// 9.5 ms, built in 0.4 s and 8.5 s instead of 30 s and minutes. But LanceDB caches the index's exact
// vectors in memory: at 1M rows the server's RSS rose from 1.39 to 1.58 GB (bench:latency), past the
// 1.5 GB bound on the API process's memory (docs/performance.md). So IVF_FLAT is used while its vectors take at most IVF_FLAT_MAX_BYTES (640k
// rows of 100 dimensions); a larger table, and any embedder of more than IVF_FLAT_MAX_DIM dimensions (its
// cost grows with the dimension; 384–1 024 not measured here), gets IVF_HNSW_SQ (1-byte codes and a
// graph). Partitions are trained once; a table that has grown 4× since is rebuilt on its next optimize
// (cheap for IVF_FLAT), so a partition holds between 4·√rows and 8·√rows rows, and one that outgrows the byte bound is
// rebuilt as IVF_HNSW_SQ; an IVF_HNSW_SQ table (indexed before this rule, or shrunk by deletions) whose
// vectors take at most half the bound is rebuilt as IVF_FLAT.
import type * as Lance from '@lancedb/lancedb';

type LanceModule = typeof Lance;

/** HNSW search breadth for IVF_HNSW_SQ indexes (docs/performance.md "ANN parameters": recall@100 0.907 at 100k). */
export const ANN_EF = 400;

/** Largest vector dimension indexed with IVF_FLAT; larger ones get IVF_HNSW_SQ. */
export const IVF_FLAT_MAX_DIM = 128;

/** Largest rows × dimension × 4 bytes (the exact vectors LanceDB caches) indexed with IVF_FLAT: 256 MiB. */
export const IVF_FLAT_MAX_BYTES = 256 * 1024 * 1024;

const IVF_FLAT_NAME = /^vector_ivf_flat_p(\d+)$/;

/** The vector index a table has: IVF_FLAT with its partition count, another kind (legacy HNSW), or none. */
export type AnnIndex = { kind: 'ivf_flat'; partitions: number } | { kind: 'other' } | null;

/**
 * IVF partitions for a table of `rows` rows: √rows / 4 (64 at 65k, 250 at 1M), at least 1 and never
 * more than rows / 256 (k-means needs samples per centroid). With nprobesFor() this is the
 * configuration that measured recall@100 ≈ 0.95 at 100k (64 partitions, 16 probes) and 1M (256, 32).
 */
export function ivfPartitionsFor(rows: number): number {
  return Math.max(1, Math.min(Math.round(Math.sqrt(rows) / 4), Math.floor(rows / 256)));
}

/** Partitions searched per query: 2·√partitions (16 of 64, 32 of 256), at most all of them. */
export function nprobesFor(partitions: number): number {
  return Math.min(partitions, Math.ceil(2 * Math.sqrt(partitions)));
}

/** The vector index among a table's indices (from listIndices), recognised by our naming. */
export function annOf(indices: Array<{ name: string; columns: string[] }>): AnnIndex {
  const vector = indices.filter((i) => i.columns.length === 1 && i.columns[0] === 'vector');
  if (vector.length === 0) return null;
  for (const i of vector) {
    const m = IVF_FLAT_NAME.exec(i.name);
    if (m) return { kind: 'ivf_flat', partitions: Number(m[1]) };
  }
  return { kind: 'other' };
}

/**
 * Set the query-time parameters of a vector query for the table's index. IVF_FLAT: probe nprobesFor(P)
 * partitions, and more, up to all P, only while fewer than `limit` rows passed the prefilter — with a
 * fixed `nprobes` a narrow filter (one document, a rare attribute value) found nothing in the probed
 * partitions and the query returned no rows at all. IVF_HNSW_SQ: ef (Lance requires ef ≥ limit). No
 * index: flat search, nothing to set.
 */
export function withAnnParams(q: Lance.VectorQuery, ann: AnnIndex, limit: number): Lance.VectorQuery {
  if (ann?.kind === 'ivf_flat') return q.minimumNprobes(nprobesFor(ann.partitions)).maximumNprobes(ann.partitions);
  if (ann?.kind === 'other') return q.ef(Math.max(ANN_EF, 2 * limit));
  return q;
}

/**
 * Build the table's vector index once it holds `threshold` rows; rebuild an IVF_FLAT index whose
 * partitions were trained on a quarter of the rows or fewer, or whose vectors have outgrown `maxBytes`
 * (then as IVF_HNSW_SQ), and an IVF_HNSW_SQ index of ≤ 128-dimensional vectors taking ≤ maxBytes / 2 (then
 * as IVF_FLAT). A rebuilt index is created beside the old one, which is then dropped, so
 * searches keep an index throughout.
 * @param rows      current row count
 * @param dim       vector dimension (the table's embedding signature)
 * @param threshold rows from which a table is indexed (flat search below; DESIGN.md §2: 50 000)
 * @param maxBytes  IVF_FLAT size bound (default IVF_FLAT_MAX_BYTES)
 * @returns true when an index was built
 * @throws whatever LanceDB throws
 */
export async function ensureAnn(lancedb: LanceModule, table: Lance.Table, rows: number, dim: number, threshold: number, maxBytes = IVF_FLAT_MAX_BYTES): Promise<boolean> {
  if (rows < threshold) return false;
  const indices = await table.listIndices();
  const ann = annOf(indices);
  const fits = (bytes: number) => dim <= IVF_FLAT_MAX_DIM && rows * dim * 4 <= bytes;
  // IVF_HNSW_SQ (built before, or for a table past the bound) becomes IVF_FLAT once the vectors take at
  // most half the bound: the margin keeps a table near it from switching back and forth.
  if (ann?.kind === 'other' && !fits(maxBytes / 2)) return false;
  const flat = fits(maxBytes);
  const want = ivfPartitionsFor(rows);
  if (ann?.kind === 'ivf_flat' && flat && want < 2 * ann.partitions) return false;
  const name = flat ? `vector_ivf_flat_p${want}` : 'vector_idx';
  const config = flat
    ? lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: want })
    : lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: Math.max(1, Math.ceil(rows / 1_000_000)) });
  await table.createIndex('vector', { config, name, replace: true });
  for (const old of indices) if (old.columns.length === 1 && old.columns[0] === 'vector' && old.name !== name) await table.dropIndex(old.name);
  return true;
}
