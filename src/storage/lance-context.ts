// What the parts of the LanceDB namespace index share: LanceNamespaceIndex (lance-index.ts) builds one
// LanceContext and hands it to the ranked reads (lance-search.ts), the reads by address or range
// (lance-row-reads.ts) and the commits (lance-writes.ts), so each part states what it uses.
import type * as Lance from '@lancedb/lancedb';
import type { CommitGate, Coordination } from './lance-commit-gate.ts';
import type { TableCache } from './lance-table-cache.ts';
import type { EmbeddingSignature } from './namespace-index.ts';

export type LanceModule = typeof Lance;

export interface LanceIndexOptions {
  /** Local directory or object-store URI (`s3://bucket/prefix`, `gs://…`). */
  uri: string;
  /** Object-store settings passed to lancedb.connect (endpoint, region, keys); AWS_* env vars also work. */
  storageOptions?: Record<string, string>;
  /** LanceDB Cloud/Enterprise (`db://` uri): API key, region, and the Enterprise host. */
  remote?: { apiKey: string; region?: string; hostOverride?: string };
  /**
   * How stale reads may be w.r.t. other processes' writes, in seconds, checked on the storage (a list
   * request on object stores). Default 0 (check every read). Ignored with `coordination`.
   */
  readConsistencySeconds?: number;
  /**
   * Several nodes on one index (docs/scale-out.md): every commit and all maintenance run under the namespace's
   * writer lease, each commit bumps the namespace's counter in the control plane, and readers move their
   * handles to the latest version when the counter changed (read at most every `syncMs`, default 100).
   */
  coordination?: Coordination;
  /** Row count from which optimize() builds the vector index (lance-ann.ts). Default 50 000 (DESIGN.md §2). */
  annThreshold?: number;
  /** Rows per Arrow batch on write. Default 2 000: building a batch is synchronous (≈20 ms per 1 000 rows), so
   *  smaller batches keep the event loop free; DESIGN.md §2 measured 26k rows/s at 10k. */
  writeBatchRows?: number;
  /** optimize() removes table versions older than this many seconds. Default 60. */
  cleanupGraceSeconds?: number;
  /**
   * refreshLexical() folds appended rows into the FTS index (a Lance optimize, whose cost grows with the
   * table) of a table of 20 000 indexed rows or more only once more than this many rows, or more than
   * LEXICAL_SCAN_SHARE of the indexed rows, are outside it; until then BM25 finds them by the engine's
   * scan (lance-writes.ts). 0 = fold every time.
   * Default 4 000 (docs/decisions/2026-11-29-ingest-throughput.md).
   */
  lexicalScanRows?: number;
  /** Indexed rows below which refreshLexical() always folds (lance-writes.ts LEXICAL_SCAN_FROM_ROWS, 20 000). */
  lexicalScanFromRows?: number;
  /** Run optimize() in the background after this many writes to a namespace; 0 = only when called. Default 50. */
  autoOptimizeEveryWrites?: number;
  /**
   * Memory bounds (docs/deployment.md): table handles kept open (default 1 000, least recently used
   * evicted) and the byte sizes of LanceDB's session caches (index structures, file metadata), shared by
   * every table; unset sizes keep LanceDB's defaults (6 GiB, 1 GiB).
   */
  memory?: { openTables?: number; indexCacheBytes?: number; metadataCacheBytes?: number };
  /** The read cache the storage options point at (object-cache-proxy.ts); closed after the connection. */
  readCache?: { close(): Promise<void>; stats(): Promise<{ memoryHits: number; diskHits: number; misses: number }> };
  /** Receives background-optimize failures. Default: process.emitWarning. */
  onMaintenanceError?: (namespace: string, err: unknown) => void;
}

/** The state one LanceNamespaceIndex shares with its parts. */
export interface LanceContext {
  /** The native module (its query and index builders). */
  lancedb: LanceModule;
  db: Lance.Connection;
  opts: LanceIndexOptions;
  /** Open table handles, moved to new versions as other processes commit. */
  tables: TableCache;
  /** Serialises commits per namespace and, with coordination, holds the writer lease. */
  gate: CommitGate;
  /** Where failures of background or non-fatal index upkeep go (opts.onMaintenanceError, else a process warning). */
  onMaintenanceError: (namespace: string, err: unknown) => void;
}

/** A signature as error messages name it: `provider/model (N-d)`. */
export const describeSignature = (s: EmbeddingSignature): string => `${s.provider}/${s.model} (${s.dimension}-d)`;
