// Readiness of this process (GET /readyz, docs/deployment.md "Health and readiness"): each
// dependency its role uses is probed, each with its own timeout, and reported separately, so an
// orchestrator takes a node out of rotation — and an operator sees which store is at fault — when the
// control plane, the blob store or the index stops answering.
import { sql } from 'kysely';
import type { Role } from './config.ts';
// Types only: the stores this file probes are defined in storage/ (which uses describeStorageError from here).
import type { ControlPlane } from '../storage/db.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { NamespaceIndex } from '../storage/namespace-index.ts';

/** A probe slower than this counts as failed (orchestrators' default probe timeout is 1-5 s). */
const PROBE_TIMEOUT_MS = 3000;

export type DependencyName = 'database' | 'blob_store' | 'index';

/**
 * The dependencies of each role. Every role touches all three stores: the API writes uploads to the
 * blob store, reads the control plane and searches the index; a worker reads blobs and the job queue
 * and writes the index. The table stays explicit so a role that needs less can say so.
 */
export const ROLE_DEPENDENCIES: Record<Role, DependencyName[]> = {
  api: ['database', 'blob_store', 'index'],
  worker: ['database', 'blob_store', 'index'],
  all: ['database', 'blob_store', 'index'],
};

export interface DependencyCheck {
  status: 'ok' | 'failed';
  /** Probe time in milliseconds (up to PROBE_TIMEOUT_MS). */
  latency_ms: number;
  /** Blob directory or s3:// prefix, index URI; absent for the database (its URL may hold a password). */
  location?: string;
  /** Why it failed (S3 error code / message), only when status = failed. */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  role: Role;
  checks: Partial<Record<DependencyName, DependencyCheck>>;
}

/** `err`'s message, with the S3 error code first when there is one (e.g. "NoSuchBucket: …"). */
export function describeStorageError(err: unknown): string {
  const e = err as { name?: string; message?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  const raw = String(e?.message ?? err);
  // LanceDB (Rust object_store) errors embed the S3 answer: "status: 404, body: Some(\"<Error><Code>NoSuchBucket…".
  const s3Code = /<Code>(\w+)<\/Code>/.exec(raw)?.[1];
  const status = e?.$metadata?.httpStatusCode ?? Number(/status: (\d{3})\b/.exec(raw)?.[1] ?? 0);
  const code = e?.Code ?? s3Code ?? (e?.name && e.name !== 'Error' ? e.name : undefined);
  const msg = s3Code ? '' : raw.split('\n')[0].slice(0, 300);
  return [code, status ? `HTTP ${status}` : undefined, msg && msg !== code ? msg : undefined].filter(Boolean).join(': ');
}

async function timed(run: () => Promise<unknown>, location?: string): Promise<DependencyCheck> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([run(), timeout]);
    return { status: 'ok', latency_ms: Math.round(performance.now() - t0), ...(location ? { location } : {}) };
  } catch (err) {
    return { status: 'failed', latency_ms: Math.round(performance.now() - t0), ...(location ? { location } : {}), error: describeStorageError(err) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Probe the dependencies of `deps.role` concurrently.
 * @param deps.indexLocation the configured index URI, reported as the index's location
 * @returns one check per dependency; ready = all ok. Never throws.
 */
export async function checkReadiness(deps: {
  role: Role; cp: ControlPlane; blobs: BlobStore; index: NamespaceIndex; indexLocation: string;
}): Promise<ReadinessReport> {
  const probes: Record<DependencyName, () => Promise<DependencyCheck>> = {
    database: () => timed(() => sql`select 1`.execute(deps.cp.db)),
    blob_store: () => timed(() => deps.blobs.probe(), deps.blobs.describe()),
    index: () => timed(() => deps.index.probe(), deps.indexLocation),
  };
  const names = ROLE_DEPENDENCIES[deps.role];
  const results = await Promise.all(names.map((n) => probes[n]()));
  const checks: ReadinessReport['checks'] = {};
  names.forEach((n, i) => { checks[n] = results[i]; });
  return { ready: results.every((r) => r.status === 'ok'), role: deps.role, checks };
}
