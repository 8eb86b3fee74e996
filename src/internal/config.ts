// Configuration is parsed and validated exactly once, at start-up, from an environment map, and then
// passed into everything that needs it. Nothing reads process.env at import time.
import path from 'node:path';

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  port: number;
  host: string;
  /** Root of all embedded state: SQLite file, LanceDB tables, blobs, model caches. */
  dataDir: string;
  /** postgres://… switches the control plane to PostgreSQL; undefined = SQLite in dataDir. */
  databaseUrl?: string;
  /** A `svc_acc_…` value that the bootstrap account's key is set to, for automation. */
  bootstrapAccountKey?: string;
  bootstrapEmail: string;
  bootstrapPassword?: string;
  /** Secret for session JWTs and for deriving per-project keys (HMAC). */
  serverSecret: string;
  role: Role;
  /** Hosts or CIDRs that outbound requests may reach even though they are private. */
  allowedPrivateHosts: string[];
  /** Max ingest body in bytes (spec Limits: 50 MB). */
  maxUploadBytes: number;
  /** Max bytes fetched from X-Remote-URL. */
  maxRemoteBytes: number;
  /** Concurrent jobs per worker process. */
  workerConcurrency: number;
  /** Lease on a claimed job, ms; an expired lease makes the job claimable again. */
  jobLeaseMs: number;
  /** How often an idle worker polls the queue, ms. */
  workerPollMs: number;
  embedder: { provider: 'builtin' | 'http'; model?: string; url?: string; apiKey?: string; dimension?: number };
  logLevel: string;
}

function int(env: Record<string, string | undefined>, key: string, dflt: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`config: ${key} must be an integer in ${min}..${max}, got "${raw}"`);
  }
  return n;
}

/**
 * Parse and validate the configuration.
 * @param env environment map (normally process.env); only keys starting DOCSEARCH_, PORT, HOST, LOG_LEVEL are read.
 * @throws Error whose message names the bad key; main() prints it and exits non-zero.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const dataDir = path.resolve(env.DOCSEARCH_DATA_DIR || './data');
  const databaseUrl = env.DOCSEARCH_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error(`config: DOCSEARCH_DATABASE_URL must be a postgres:// URL, got "${databaseUrl}"`);
  }
  const bootstrapAccountKey = env.DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY || undefined;
  if (bootstrapAccountKey && !/^svc_acc_[A-Za-z0-9_-]{16,}$/.test(bootstrapAccountKey)) {
    throw new Error('config: DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY must look like svc_acc_<at least 16 url-safe characters>');
  }
  const role = (env.DOCSEARCH_ROLE || 'all') as Role;
  if (!['api', 'worker', 'all'].includes(role)) {
    throw new Error(`config: DOCSEARCH_ROLE must be api, worker or all, got "${role}"`);
  }
  const provider = (env.DOCSEARCH_EMBEDDER || 'builtin') as Config['embedder']['provider'];
  if (!['builtin', 'http'].includes(provider)) {
    throw new Error(`config: DOCSEARCH_EMBEDDER must be builtin or http, got "${provider}"`);
  }
  if (provider === 'http' && !env.DOCSEARCH_EMBEDDER_URL) {
    throw new Error('config: DOCSEARCH_EMBEDDER_URL is required when DOCSEARCH_EMBEDDER=http');
  }
  const allowedPrivateHosts = (env.DOCSEARCH_ALLOWED_PRIVATE_HOSTS || '')
    .split(',').map((s) => s.trim()).filter(Boolean);
  const serverSecret = env.DOCSEARCH_SECRET || '';
  if (serverSecret && serverSecret.length < 32) {
    throw new Error('config: DOCSEARCH_SECRET must be at least 32 characters');
  }
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl,
    bootstrapAccountKey,
    bootstrapEmail: env.DOCSEARCH_BOOTSTRAP_EMAIL || 'admin@localhost',
    bootstrapPassword: env.DOCSEARCH_BOOTSTRAP_PASSWORD || undefined,
    // An empty secret means "generate one and persist it in the data dir" (see app.ts).
    serverSecret,
    role,
    allowedPrivateHosts,
    maxUploadBytes: int(env, 'DOCSEARCH_MAX_UPLOAD_BYTES', 50 * 1024 * 1024, 1, 2 ** 40),
    maxRemoteBytes: int(env, 'DOCSEARCH_MAX_REMOTE_BYTES', 500 * 1024 * 1024, 1, 2 ** 40),
    workerConcurrency: int(env, 'DOCSEARCH_WORKER_CONCURRENCY', 2, 1, 256),
    jobLeaseMs: int(env, 'DOCSEARCH_JOB_LEASE_MS', 60_000, 1000, 24 * 3600_000),
    workerPollMs: int(env, 'DOCSEARCH_WORKER_POLL_MS', 250, 10, 60_000),
    embedder: {
      provider,
      model: env.DOCSEARCH_EMBEDDER_MODEL || undefined,
      url: env.DOCSEARCH_EMBEDDER_URL || undefined,
      apiKey: env.DOCSEARCH_EMBEDDER_API_KEY || undefined,
      dimension: env.DOCSEARCH_EMBEDDER_DIMENSION ? int(env, 'DOCSEARCH_EMBEDDER_DIMENSION', 0, 1, 65536) : undefined,
    },
    logLevel: env.LOG_LEVEL || 'info',
  };
}
