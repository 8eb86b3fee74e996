// Recall of approximate vector search against exact search, shared by bench/ann-params.ts (query-time
// knobs) and bench/ann-build.ts (index kinds and build parameters). Recall@k is tie-aware: an approximate
// hit counts when its exact distance is within the exact k-th distance.
import type { Table as ArrowTable } from 'apache-arrow';
import type * as Lance from '@lancedb/lancedb';
import { cosine } from '../../src/internal/cosine.ts';

/** The `id` column of a result as strings. */
export const idsOf = (t: ArrowTable): string[] => {
  const c = t.getChild('id');
  return c ? Array.from({ length: t.numRows }, (_, i) => String(c.get(i))) : [];
};

/** Exact distances of one query's top `limit` + 20 (to see ties at the cut) and the k-th distance per k. */
export interface ExactTruth { dist: Map<string, number>; cut: number[] }

/**
 * Exact cosine top-`limit` of every query by flat search (the index bypassed).
 * @param ks the k of each recall@k to report (each ≤ limit)
 */
export async function exactTruth(table: Lance.Table, vectors: Float32Array[], limit: number, ks: number[]): Promise<ExactTruth[]> {
  const out: ExactTruth[] = [];
  for (const v of vectors) {
    const t = await table.vectorSearch(v).column('vector').distanceType('cosine').bypassVectorIndex().select(['id', '_distance']).limit(limit + 20).toArrow();
    const d = t.getChild('_distance')!;
    const list = idsOf(t).map((id, i) => [id, Number(d.get(i))] as const);
    out.push({ dist: new Map(list), cut: ks.map((k) => list[k - 1][1]) });
  }
  return out;
}

/** Recall@k for each k of `ks` of one query's approximate id list. */
export function recallsAt(truth: ExactTruth, ks: number[], got: string[]): number[] {
  return ks.map((k, j) => got.slice(0, k).filter((id) => (truth.dist.get(id) ?? Infinity) <= truth.cut[j] + 1e-6).length / k);
}

/** Ids of a result that carries `vector`, re-sorted by the exact cosine to `v` (what lance-index.ts does). */
export function rescoredIds(v: Float32Array, t: ArrowTable): string[] {
  const col = t.getChild('vector')!;
  return idsOf(t).map((id, i) => ({ id, s: cosine(v, col.get(i)!.toArray() as Float32Array) ?? 0 })).sort((a, b) => b.s - a.s).map((x) => x.id);
}
