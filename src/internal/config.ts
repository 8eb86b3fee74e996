// Configuration is parsed and validated exactly once, at start-up, from an environment map, and then
// passed into everything that needs it. Nothing reads process.env at import time.
import os from 'node:os';
import path from 'node:path';
// The two imports below run upward on purpose: configuration is parsed once, here, so the parsers of the
// files two keys name (model settings, a fitted relevance model) are called from here, while they live
// beside the code that reads those settings. Neither module imports back into internal/ at run time.
import { parseOnnxEmbedderConfig, parseRerankerConfig, type RerankerConfig } from '../models/model-config.ts';
import { loadRelevanceModelFile, type RelevanceModelFile } from '../search/relevance-model-file.ts';
import { parseStorageConfig, type StorageConfig } from './storage-config.ts';

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
  /** Role worker only: port of a probe-only HTTP listener (/healthz, /readyz, /metrics); unset = none. */
  probePort?: number;
  /** Hosts or CIDRs that outbound requests may reach even though they are private. */
  allowedPrivateHosts: string[];
  /** Max ingest body in bytes (spec Limits: 50 MB). */
  maxUploadBytes: number;
  /** Max bytes fetched from X-Remote-URL. */
  maxRemoteBytes: number;
  /** Concurrent jobs per worker process (of one project; see workerFairSlots). */
  workerConcurrency: number;
  /**
   * Extra job slots per worker process that a project already running `workerConcurrency` jobs there
   * cannot take, so another project's document starts at once. Optional (= 0) so
   * hand-built configs stay valid.
   */
  workerFairSlots?: number;
  /** Lease on a claimed job, ms; an expired lease makes the job claimable again. */
  jobLeaseMs: number;
  /** How often an idle worker polls the queue, ms. */
  workerPollMs: number;
  /**
   * Several nodes on one index (docs/scale-out.md). Optional so hand-built configs stay valid.
   * writerLeaseMs: TTL of a namespace's writer lease (a dead holder is taken over after at most this);
   * indexSyncMs: longest time a reader serves a namespace without checking for other nodes' commits;
   * localTakeover: take a lease over at once when its holder is a dead process on this host.
   */
  scaleOut?: { writerLeaseMs: number; indexSyncMs: number; localTakeover: boolean };
  /**
   * Memory the index keeps per process (docs/deployment.md "Memory with many namespaces"). Optional so
   * hand-built configs stay valid (= defaults). openTables: namespace table handles kept open (least
   * recently used evicted); indexCacheBytes / metadataCacheBytes: LanceDB's session caches, shared by
   * every table of the process.
   */
  indexMemory?: { openTables: number; indexCacheBytes: number; metadataCacheBytes: number };
  /** Rows an ingest may leave outside the FTS index of a namespace of 20 000 indexed rows or more, found by the engine's scan (DOCSEARCH_FTS_SCAN_MAX_ROWS; 0 = fold at every commit). */
  lexicalScanRows?: number;
  /** Completion webhooks: first retry delay (doubles per attempt, capped at 1 h), attempts, per-attempt timeout. */
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  webhookTimeoutMs: number;
  /** How long a reindex keeps the generation it retired before dropping its table, ms (docs/reindex.md). */
  reindexRetireMs: number;
  /** Comment heartbeat interval of the job status SSE stream, ms. */
  sseHeartbeatMs: number;
  embedder: {
    provider: 'builtin' | 'http' | 'onnx'; model?: string; url?: string; apiKey?: string; dimension?: number;
    /** onnx: local Hugging Face folder, and optional text prefixes (e5: "query: "/"passage: "). */
    modelDir?: string; queryPrefix?: string; documentPrefix?: string;
  };
  /** Reranker of the advanced tier (docs/models.md). Optional so hand-built configs stay valid (= builtin). */
  reranker?: RerankerConfig;
  /**
   * DOCSEARCH_RELEVANCE_MODEL: the standard tier's relevance model fitted for this deployment's embedder
   * (search/relevance-model-file.ts, docs/models.md); absent = the shipped model (fitted with the builtin one).
   */
  relevanceModel?: RelevanceModelFile;
  logLevel: string;
  /** Parse isolation and limits (docs/ocr.md). Optional so hand-built configs stay valid. */
  parse?: {
    timeoutMs: number; maxMemoryMb: number; maxPages: number; maxOcrPages: number; ocr: boolean;
    /** DOCSEARCH_OCR_LANGS: fixed Tesseract language string (e.g. "deu+eng"); unset = automatic choice. */
    ocrLangs?: string;
  };
  /** SMTP relay for e-mail completion targets (bucket tasks); unset = e-mail targets are refused. */
  smtp?: { url: string; from: string };
  /** Admission control (docs/admission.md). Optional so hand-built configs stay valid (= defaults). */
  admission?: AdmissionConfig;
  /** Blob store and index locations (docs/deployment.md). Optional: absent = local dirs under dataDir. */
  storage?: StorageConfig;
  /** Bulk bucket ingestion (docs/buckets.md). Optional so hand-built configs stay valid. */
  buckets?: {
    /** Files per task; beyond it a task ends done_with_errors (spec: target ceiling 100,000). */
    fileCap: number;
    /** Region this deployment runs in (e.g. us-east-1); buckets elsewhere need acknowledge_egress_cost. */
    region?: string;
    /** Per-account bytes fetched from buckets per UTC month; 0 = no quota (paused_egress_quota_exhausted). */
    egressQuotaBytes: number;
    /** Per-account files ingested from buckets per UTC month; 0 = no quota (paused_credit_exhausted). */
    fileCredits: number;
    /** Bucket tasks driven at once by one worker process (others wait in queued_org). */
    concurrentTasks: number;
  };
}

/** Limits that keep one tenant (or one client address) from taking the service; 0 turns a limit off. */
export interface AdmissionConfig {
  /** Search requests (search, searchInDoc) per project per minute. */
  searchPerMin: number;
  /** Ingest requests (ingest, ingestBucket) per project per minute. */
  ingestPerMin: number;
  /** Evaluation requests (POST /docsearch/evaluations) per project per minute; their searches count against no search limit. */
  evaluationsPerMin: number;
  /** Requests of any kind (probes excepted) per client IP per minute. */
  ipPerMin: number;
  /** Open job status streams per project. */
  streamsPerProject: number;
  /** Ingest jobs of one project accepted and not yet finished (pending or processing). */
  inflightIngestsPerProject: number;
  /**
   * Where request-rate counters live: 'shared' in the control plane (one budget for every API process on
   * the database; default with PostgreSQL) or 'local' in this process (default with SQLite, one node).
   */
  rateLimitStore: 'local' | 'shared';
  /** Failed logins of one account (e-mail) before backoff starts; then each failure doubles the wait. */
  loginFreeFailures: number;
  /** Failed logins from one client IP (any account) before backoff starts. */
  loginIpFreeFailures: number;
  /** First backoff wait, ms, and its cap. */
  loginBackoffBaseMs: number;
  loginBackoffMaxMs: number;
}

/** Defaults of AdmissionConfig (also used when a hand-built Config has none). */
export const DEFAULT_ADMISSION: AdmissionConfig = {
  searchPerMin: 1200, ingestPerMin: 600, evaluationsPerMin: 10, ipPerMin: 6000, streamsPerProject: 32, inflightIngestsPerProject: 1000, rateLimitStore: 'local',
  loginFreeFailures: 5, loginIpFreeFailures: 20, loginBackoffBaseMs: 1000, loginBackoffMaxMs: 15 * 60_000,
};

function int(env: Record<string, string | undefined>, key: string, dflt: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`config: ${key} must be an integer in ${min}..${max}, got "${raw}"`);
  }
  return n;
}

/** Memory of this host, bytes: os.totalmem(), or the cgroup limit when a container sets a lower one. */
export function hostMemoryBytes(): number {
  const total = os.totalmem();
  const limit = process.constrainedMemory?.() ?? 0;
  return limit > 0 && limit < total ? limit : total;
}

/**
 * Default memory bound of one parse child, MB: half of the host's memory shared by the parse slots
 * (each slot may run one child), within 256..2,048 MB. A 2 GB host with the default 3 slots gets
 * 341 MB per child, a 16 GB host 2,048 MB (the earlier fixed default; a zip bomb peaked at ~2 GB).
 * @param totalBytes host memory (hostMemoryBytes())
 * @param slots parse children that may run at once (worker concurrency + fair slots)
 */
export function defaultParseMemoryMb(totalBytes: number, slots: number): number {
  const share = Math.floor(totalBytes / 2 / Math.max(1, slots) / 2 ** 20);
  return Math.min(2048, Math.max(256, share));
}

/** DOCSEARCH_RATE_LIMIT_STORE: local or shared; unset = shared with PostgreSQL, local with SQLite. */
function rateLimitStore(raw: string | undefined, databaseUrl: string | undefined): AdmissionConfig['rateLimitStore'] {
  if (!raw) return databaseUrl ? 'shared' : 'local';
  if (raw !== 'local' && raw !== 'shared') throw new Error(`config: DOCSEARCH_RATE_LIMIT_STORE must be local or shared, got "${raw}"`);
  return raw;
}

/** DOCSEARCH_SMTP_URL must be smtp:// or smtps:// (nodemailer's connection URL form). */
function smtpUrl(raw: string): string {
  if (!/^smtps?:\/\/[^/]/.test(raw)) throw new Error(`config: DOCSEARCH_SMTP_URL must be an smtp:// or smtps:// URL, got "${raw.replace(/:[^:@/]*@/, ':***@')}"`);
  return raw;
}

/**
 * Parse and validate the configuration.
 * @param env environment map (normally process.env); only keys starting DOCSEARCH_, PORT, HOST, LOG_LEVEL
 *   (and AWS_REGION as the S3 region's fallback) are read.
 * @param host this host's memory (default hostMemoryBytes()), for the parse-memory default
 * @throws Error whose message names the bad key; main() prints it and exits non-zero.
 */
export function loadConfig(env: Record<string, string | undefined>, host: { memoryBytes: number } = { memoryBytes: hostMemoryBytes() }): Config {
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
  if (!['builtin', 'http', 'onnx'].includes(provider)) {
    throw new Error(`config: DOCSEARCH_EMBEDDER must be builtin, onnx or http, got "${provider}"`);
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
  const workerConcurrency = int(env, 'DOCSEARCH_WORKER_CONCURRENCY', 2, 1, 256);
  const workerFairSlots = int(env, 'DOCSEARCH_WORKER_FAIR_SLOTS', 1, 0, 64);
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
    probePort: env.DOCSEARCH_PROBE_PORT ? int(env, 'DOCSEARCH_PROBE_PORT', 0, 0, 65535) : undefined,
    allowedPrivateHosts,
    maxUploadBytes: int(env, 'DOCSEARCH_MAX_UPLOAD_BYTES', 50 * 1024 * 1024, 1, 2 ** 40),
    maxRemoteBytes: int(env, 'DOCSEARCH_MAX_REMOTE_BYTES', 500 * 1024 * 1024, 1, 2 ** 40),
    workerConcurrency,
    workerFairSlots,
    jobLeaseMs: int(env, 'DOCSEARCH_JOB_LEASE_MS', 60_000, 1000, 24 * 3600_000),
    workerPollMs: int(env, 'DOCSEARCH_WORKER_POLL_MS', 250, 10, 60_000),
    indexMemory: {
      openTables: int(env, 'DOCSEARCH_INDEX_OPEN_TABLES', 1000, 1, 1_000_000),
      indexCacheBytes: int(env, 'DOCSEARCH_LANCE_INDEX_CACHE_MB', 1024, 1, 1_048_576) * 1024 * 1024,
      metadataCacheBytes: int(env, 'DOCSEARCH_LANCE_METADATA_CACHE_MB', 256, 1, 1_048_576) * 1024 * 1024,
    },
    lexicalScanRows: int(env, 'DOCSEARCH_FTS_SCAN_MAX_ROWS', 4000, 0, 1_000_000),
    scaleOut: {
      writerLeaseMs: int(env, 'DOCSEARCH_WRITER_LEASE_MS', 15_000, 1000, 3600_000),
      indexSyncMs: int(env, 'DOCSEARCH_INDEX_SYNC_MS', 100, 0, 60_000),
      localTakeover: (env.DOCSEARCH_WRITER_LEASE_LOCAL_TAKEOVER || 'on').toLowerCase() !== 'off',
    },
    webhookRetryBaseMs: int(env, 'DOCSEARCH_WEBHOOK_RETRY_BASE_MS', 5000, 10, 3600_000),
    reindexRetireMs: int(env, 'DOCSEARCH_REINDEX_RETIRE_MS', 60_000, 0, 86_400_000),
    webhookMaxAttempts: int(env, 'DOCSEARCH_WEBHOOK_MAX_ATTEMPTS', 12, 1, 100),
    webhookTimeoutMs: int(env, 'DOCSEARCH_WEBHOOK_TIMEOUT_MS', 10_000, 100, 300_000),
    sseHeartbeatMs: int(env, 'DOCSEARCH_SSE_HEARTBEAT_MS', 15_000, 100, 300_000),
    embedder: {
      provider,
      model: env.DOCSEARCH_EMBEDDER_MODEL || undefined,
      url: env.DOCSEARCH_EMBEDDER_URL || undefined,
      apiKey: env.DOCSEARCH_EMBEDDER_API_KEY || undefined,
      dimension: env.DOCSEARCH_EMBEDDER_DIMENSION ? int(env, 'DOCSEARCH_EMBEDDER_DIMENSION', 0, 1, 65536) : undefined,
      ...(provider === 'onnx' ? parseOnnxEmbedderConfig(env) : {}),
    },
    reranker: parseRerankerConfig(env),
    ...(env.DOCSEARCH_RELEVANCE_MODEL ? { relevanceModel: loadRelevanceModelFile(path.resolve(env.DOCSEARCH_RELEVANCE_MODEL)) } : {}),
    logLevel: env.LOG_LEVEL || 'info',
    parse: {
      timeoutMs: int(env, 'DOCSEARCH_PARSE_TIMEOUT_MS', 600_000, 1000, 24 * 3600_000),
      maxMemoryMb: int(env, 'DOCSEARCH_PARSE_MAX_MEMORY_MB', defaultParseMemoryMb(host.memoryBytes, workerConcurrency + workerFairSlots), 128, 1024 * 1024),
      maxPages: int(env, 'DOCSEARCH_PARSE_MAX_PAGES', 2000, 1, 1_000_000),
      maxOcrPages: int(env, 'DOCSEARCH_OCR_MAX_PAGES', 100, 0, 100_000),
      ocr: (env.DOCSEARCH_OCR || 'on').toLowerCase() !== 'off',
      ocrLangs: env.DOCSEARCH_OCR_LANGS?.trim() || undefined,
    },
    admission: {
      searchPerMin: int(env, 'DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN', DEFAULT_ADMISSION.searchPerMin, 0, 1_000_000),
      ingestPerMin: int(env, 'DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN', DEFAULT_ADMISSION.ingestPerMin, 0, 1_000_000),
      evaluationsPerMin: int(env, 'DOCSEARCH_RATE_LIMIT_EVALUATIONS_PER_MIN', DEFAULT_ADMISSION.evaluationsPerMin, 0, 1_000_000),
      ipPerMin: int(env, 'DOCSEARCH_RATE_LIMIT_IP_PER_MIN', DEFAULT_ADMISSION.ipPerMin, 0, 10_000_000),
      streamsPerProject: int(env, 'DOCSEARCH_MAX_STREAMS_PER_PROJECT', DEFAULT_ADMISSION.streamsPerProject, 0, 100_000),
      rateLimitStore: rateLimitStore(env.DOCSEARCH_RATE_LIMIT_STORE, databaseUrl),
      inflightIngestsPerProject: int(env, 'DOCSEARCH_MAX_INFLIGHT_INGESTS_PER_PROJECT', DEFAULT_ADMISSION.inflightIngestsPerProject, 0, 10_000_000),
      loginFreeFailures: int(env, 'DOCSEARCH_LOGIN_FREE_FAILURES', DEFAULT_ADMISSION.loginFreeFailures, 1, 1000),
      loginIpFreeFailures: int(env, 'DOCSEARCH_LOGIN_IP_FREE_FAILURES', DEFAULT_ADMISSION.loginIpFreeFailures, 1, 100_000),
      loginBackoffBaseMs: int(env, 'DOCSEARCH_LOGIN_BACKOFF_BASE_MS', DEFAULT_ADMISSION.loginBackoffBaseMs, 1, 3600_000),
      loginBackoffMaxMs: int(env, 'DOCSEARCH_LOGIN_BACKOFF_MAX_MS', DEFAULT_ADMISSION.loginBackoffMaxMs, 1, 24 * 3600_000),
    },
    storage: parseStorageConfig(env, dataDir),
    smtp: env.DOCSEARCH_SMTP_URL ? { url: smtpUrl(env.DOCSEARCH_SMTP_URL), from: env.DOCSEARCH_SMTP_FROM || 'docsearch@localhost' } : undefined,
    buckets: {
      fileCap: int(env, 'DOCSEARCH_BUCKET_FILE_CAP', 100_000, 1, 100_000),
      region: env.DOCSEARCH_REGION || undefined,
      egressQuotaBytes: int(env, 'DOCSEARCH_BUCKET_EGRESS_QUOTA_BYTES', 0, 0, 2 ** 53 - 1),
      fileCredits: int(env, 'DOCSEARCH_BUCKET_FILE_CREDITS', 0, 0, 2 ** 31 - 1),
      concurrentTasks: int(env, 'DOCSEARCH_BUCKET_CONCURRENT_TASKS', 4, 1, 64),
    },
  };
}
