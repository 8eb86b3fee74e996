// The engine baseline of the search benchmarks: LanceDB queried directly on a namespace table,
// vector top-k ∥ BM25 top-k with the service's ANN parameters. bench:latency, bench/search-ab.ts and
// bench/native-hybrid.ts all measure against it, so it is defined once here.
import path from 'node:path';
import type * as Lance from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import { STORED_COLUMNS } from '../../src/storage/lance-arrow.ts';
import { annOf, withAnnParams, type AnnIndex } from '../../src/storage/lance-ann.ts';

/** What the baseline reads by default: the chunk rows with text and vectors, as a raw LanceDB client would. */
export const BASELINE_COLUMNS: readonly string[] = [...STORED_COLUMNS, 'vector'];

export interface BaselineTable {
  lancedb: typeof Lance;
  table: Lance.Table;
  /** The service's query parameters for this table's vector index (storage/lance-ann.ts). */
  ann: AnnIndex;
  close(): void;
}

/**
 * Open a namespace table of a data directory for direct queries. LANCEDB_LOG is set to `error` before
 * LanceDB loads (otherwise every query logs a deprecation warning).
 * @param dataDir DOCSEARCH_DATA_DIR of the namespace (its tables are under `lance/`)
 */
export async function openBaselineTable(dataDir: string, namespace: string): Promise<BaselineTable> {
  process.env.LANCEDB_LOG ??= 'error';
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(path.join(dataDir, 'lance'));
  const table = await db.openTable(namespace);
  const ann = annOf(await table.listIndices());
  return { lancedb, table, ann, close: () => { table.close(); db.close(); } };
}

/**
 * Vector top-`depth` ∥ BM25 top-`depth` (OR over `terms` on the analysed-token column), as Arrow tables.
 * @param opts.columns columns read (default BASELINE_COLUMNS); `_distance` / `_score` are added
 * @param opts.depth   rows per list (default 100, the service's RETRIEVE_LIMIT)
 * @param opts.rowIds  also return `_rowid` (the service does)
 */
export function vectorAndBm25(t: BaselineTable, vector: Float32Array, terms: string[], opts: { columns?: readonly string[]; depth?: number; rowIds?: boolean } = {}): Promise<[ArrowTable, ArrowTable]> {
  const columns = opts.columns ?? BASELINE_COLUMNS;
  const depth = opts.depth ?? 100;
  let v = withAnnParams(t.table.vectorSearch(vector).column('vector').distanceType('cosine'), t.ann, depth).select([...columns, '_distance']).limit(depth);
  let b = t.table.query().fullTextSearch(new t.lancedb.MatchQuery(terms.join(' '), 'tokens', { operator: t.lancedb.Operator.Or })).select([...columns, '_score']).limit(depth);
  if (opts.rowIds) {
    v = v.withRowId();
    b = b.withRowId();
  }
  return Promise.all([v.toArrow(), b.toArrow()]);
}
