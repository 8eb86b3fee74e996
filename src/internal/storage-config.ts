// Where the data lives (DESIGN.md §2): the blob store (original files, extracted assets) and
// the LanceDB data plane, each a local directory under DOCSEARCH_DATA_DIR by default or an object-store
// URI for multi-node deployments, plus the S3 endpoint and credential settings both share. Parsed and
// validated once, at start-up, by loadConfig(); docs/deployment.md explains every variable.
import path from 'node:path';

/** Connection settings of an S3-compatible service (AWS S3, MinIO, Ceph RGW, R2, GCS interoperability…). */
export interface S3Settings {
  /** Custom endpoint origin (e.g. http://minio:9000); undefined = AWS S3 of `region`. */
  endpoint?: string;
  region: string;
  /** Static keys (DOCSEARCH_S3_ACCESS_KEY_ID/…); unset = the SDK's default chain (AWS_* env, profile, role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Path-style requests (`endpoint/bucket/key`): needed by most S3-compatible servers. */
  forcePathStyle: boolean;
  /** Permit plain http:// endpoints (LanceDB refuses them unless told). */
  allowHttp: boolean;
}

export type BlobLocation = { kind: 'local'; dir: string } | { kind: 's3'; bucket: string; prefix: string };

export type IndexLocation =
  | { kind: 'local'; uri: string }
  | { kind: 's3' | 'gs'; uri: string; bucket: string; prefix: string }
  /** LanceDB Cloud / Enterprise: `db://<database>`; the managed engine. */
  | { kind: 'db'; uri: string; apiKey: string; region?: string; hostOverride?: string };

/** The read cache in front of an s3:// index (storage/object-cache-proxy.ts, docs/deployment.md). */
export interface IndexCacheSettings {
  /** Bytes of Lance file blocks kept in memory per process. */
  memoryBytes: number;
  /** Bytes of Lance file blocks kept on local disk, shared by the processes that use `dir`. */
  diskBytes: number;
  dir: string;
}

export interface StorageConfig {
  blob: BlobLocation;
  index: IndexLocation;
  /** Present when the blob store or the index is on s3://. */
  s3?: S3Settings;
  /** Present when the index is on s3:// and the cache is not turned off (both sizes 0). */
  indexCache?: IndexCacheSettings;
}

type Env = Record<string, string | undefined>;

/** `s3://bucket/some/prefix` -> bucket and prefix without slashes at either end. */
function parseBucketUri(key: string, raw: string, scheme: 's3' | 'gs'): { bucket: string; prefix: string } {
  const m = new RegExp(`^${scheme}://([^/?#]+)(/[^?#]*)?$`).exec(raw);
  // Bucket names: 3-63 lower-case letters, digits, dots and hyphens (S3 and GCS naming rules).
  if (!m || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(m[1])) {
    throw new Error(`config: ${key} must look like ${scheme}://bucket/optional/prefix (bucket: 3-63 lower-case letters, digits, dots, hyphens), got "${raw}"`);
  }
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((p) => p === '..' || p === '.') || prefix.includes('//')) {
    throw new Error(`config: ${key} has an invalid key prefix "${prefix}"`);
  }
  return { bucket: m[1], prefix };
}

function bool(env: Env, key: string, dflt: boolean): boolean {
  const raw = (env[key] ?? '').trim().toLowerCase();
  if (raw === '') return dflt;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`config: ${key} must be true or false, got "${env[key]}"`);
}

function parseS3Settings(env: Env): S3Settings {
  const endpoint = env.DOCSEARCH_S3_ENDPOINT?.trim() || undefined;
  if (endpoint && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint)) {
    throw new Error(`config: DOCSEARCH_S3_ENDPOINT must be an http(s)://host[:port] origin, got "${endpoint}"`);
  }
  const accessKeyId = env.DOCSEARCH_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.DOCSEARCH_S3_SECRET_ACCESS_KEY || undefined;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error('config: DOCSEARCH_S3_ACCESS_KEY_ID and DOCSEARCH_S3_SECRET_ACCESS_KEY must be set together (or neither, for the AWS default credential chain)');
  }
  const region = env.DOCSEARCH_S3_REGION?.trim() || env.AWS_REGION?.trim() || 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region)) throw new Error(`config: DOCSEARCH_S3_REGION must look like us-east-1, got "${region}"`);
  const allowHttp = bool(env, 'DOCSEARCH_S3_ALLOW_HTTP', Boolean(endpoint?.startsWith('http://')));
  if (endpoint?.startsWith('http://') && !allowHttp) {
    throw new Error('config: DOCSEARCH_S3_ENDPOINT is http:// but DOCSEARCH_S3_ALLOW_HTTP=false');
  }
  return {
    endpoint: endpoint?.replace(/\/$/, ''),
    region,
    accessKeyId,
    secretAccessKey,
    sessionToken: env.DOCSEARCH_S3_SESSION_TOKEN || undefined,
    // A custom endpoint is usually a self-hosted server without virtual-host DNS: path style by default.
    forcePathStyle: bool(env, 'DOCSEARCH_S3_FORCE_PATH_STYLE', Boolean(endpoint)),
    allowHttp,
  };
}

/**
 * Parse the storage locations.
 * @param env environment map; reads DOCSEARCH_BLOB_URI, DOCSEARCH_INDEX_URI, DOCSEARCH_S3_*, DOCSEARCH_LANCEDB_*
 *   and AWS_REGION (as the region's fallback)
 * @param dataDir resolved DOCSEARCH_DATA_DIR, root of the local defaults (`blobs/`, `lance/`); explicit
 *   relative paths are resolved against the working directory, like DOCSEARCH_DATA_DIR
 * @throws Error naming the bad variable
 */
export function parseStorageConfig(env: Env, dataDir: string): StorageConfig {
  const blobRaw = env.DOCSEARCH_BLOB_URI?.trim() || '';
  const indexRaw = env.DOCSEARCH_INDEX_URI?.trim() || '';
  let blob: BlobLocation;
  if (blobRaw.startsWith('s3://')) blob = { kind: 's3', ...parseBucketUri('DOCSEARCH_BLOB_URI', blobRaw, 's3') };
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(blobRaw)) {
    throw new Error(`config: DOCSEARCH_BLOB_URI must be a local path or s3://bucket/prefix (for Google Cloud Storage use its S3-compatible endpoint with DOCSEARCH_S3_ENDPOINT=https://storage.googleapis.com), got "${blobRaw}"`);
  } else blob = { kind: 'local', dir: blobRaw ? path.resolve(blobRaw) : path.join(dataDir, 'blobs') };

  let index: IndexLocation;
  if (indexRaw.startsWith('s3://')) index = { kind: 's3', uri: indexRaw.replace(/\/+$/, ''), ...parseBucketUri('DOCSEARCH_INDEX_URI', indexRaw, 's3') };
  else if (indexRaw.startsWith('gs://')) index = { kind: 'gs', uri: indexRaw.replace(/\/+$/, ''), ...parseBucketUri('DOCSEARCH_INDEX_URI', indexRaw, 'gs') };
  else if (indexRaw.startsWith('db://')) {
    if (!/^db:\/\/[A-Za-z0-9][A-Za-z0-9_-]*$/.test(indexRaw)) throw new Error(`config: DOCSEARCH_INDEX_URI must look like db://<database> for LanceDB Cloud/Enterprise, got "${indexRaw}"`);
    const apiKey = env.DOCSEARCH_LANCEDB_API_KEY || '';
    if (!apiKey) throw new Error('config: DOCSEARCH_LANCEDB_API_KEY is required when DOCSEARCH_INDEX_URI is db://…');
    const hostOverride = env.DOCSEARCH_LANCEDB_HOST || undefined;
    if (hostOverride && !/^https?:\/\/[^/?#]+\/?$/.test(hostOverride)) throw new Error(`config: DOCSEARCH_LANCEDB_HOST must be an http(s):// origin, got "${hostOverride}"`);
    index = { kind: 'db', uri: indexRaw, apiKey, region: env.DOCSEARCH_LANCEDB_REGION || undefined, hostOverride };
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(indexRaw)) {
    throw new Error(`config: DOCSEARCH_INDEX_URI must be a local path, s3://bucket/prefix, gs://bucket/prefix or db://<database>, got "${indexRaw}"`);
  } else index = { kind: 'local', uri: indexRaw ? path.resolve(indexRaw) : path.join(dataDir, 'lance') };

  const needsS3 = blob.kind === 's3' || index.kind === 's3';
  const indexCache = index.kind === 's3' ? parseIndexCache(env, dataDir) : undefined;
  return { blob, index, s3: needsS3 ? parseS3Settings(env) : undefined, ...(indexCache ? { indexCache } : {}) };
}

/** A whole number of MiB from `key` (default `dflt`), as bytes. */
function mib(env: Env, key: string, dflt: number): number {
  const raw = env[key]?.trim() || '';
  if (raw === '') return dflt * 1024 * 1024;
  if (!/^\d+$/.test(raw)) throw new Error(`config: ${key} must be a whole number of MiB (0 = off), got "${env[key]}"`);
  return Number(raw) * 1024 * 1024;
}

/**
 * DOCSEARCH_INDEX_CACHE_MEMORY_MB (default 256), DOCSEARCH_INDEX_CACHE_DISK_MB (default 4096) and
 * DOCSEARCH_INDEX_CACHE_DIR (default <data dir>/index-cache); undefined when both sizes are 0.
 */
function parseIndexCache(env: Env, dataDir: string): IndexCacheSettings | undefined {
  const memoryBytes = mib(env, 'DOCSEARCH_INDEX_CACHE_MEMORY_MB', 256);
  const diskBytes = mib(env, 'DOCSEARCH_INDEX_CACHE_DISK_MB', 4096);
  if (memoryBytes === 0 && diskBytes === 0) return undefined;
  const dir = env.DOCSEARCH_INDEX_CACHE_DIR?.trim();
  return { memoryBytes, diskBytes, dir: dir ? path.resolve(dir) : path.join(dataDir, 'index-cache') };
}

/**
 * LanceDB storageOptions for an s3:// index (keys of the Rust object_store crate's S3 builder).
 * Unset keys fall back to the object store's own AWS_* environment handling.
 */
export function lanceS3StorageOptions(s3: S3Settings): Record<string, string> {
  const o: Record<string, string> = { region: s3.region };
  if (s3.endpoint) o.endpoint = s3.endpoint;
  if (s3.accessKeyId && s3.secretAccessKey) {
    o.aws_access_key_id = s3.accessKeyId;
    o.aws_secret_access_key = s3.secretAccessKey;
    if (s3.sessionToken) o.aws_session_token = s3.sessionToken;
  }
  if (s3.allowHttp) o.allow_http = 'true';
  // object_store's default is path style; its virtual-hosted mode expects the bucket inside the endpoint.
  if (s3.forcePathStyle) o.virtual_hosted_style_request = 'false';
  return o;
}
