// Turns the configured storage locations (internal/storage-config.ts) into the blob store and the
// LanceDB connection options, and checks once at start-up that both answer, so a wrong bucket, endpoint
// or key stops the process with a message naming the variable instead of failing the first ingest.
import type { Config } from '../internal/config.ts';
import { lanceS3StorageOptions, parseStorageConfig, type StorageConfig } from '../internal/storage-config.ts';
import { LocalBlobStore, type BlobStore } from './blob-store.ts';
import { S3BlobStore, createS3Client } from './s3-blob-store.ts';
import { openLanceIndex, type LanceIndexOptions, type LanceNamespaceIndex } from './lance-index.ts';
import type { NamespaceIndex } from './namespace-index.ts';
import { describeStorageError } from '../internal/readiness.ts';
import { ObjectCache } from './object-cache.ts';

/** The storage section of `cfg`; a hand-built Config without one gets the local defaults under dataDir. */
export function storageOf(cfg: Config): StorageConfig {
  return cfg.storage ?? parseStorageConfig({}, cfg.dataDir);
}

/** The blob store at DOCSEARCH_BLOB_URI (local directory or s3://bucket/prefix). */
export function openBlobStore(cfg: Config): BlobStore {
  const { blob, s3 } = storageOf(cfg);
  if (blob.kind === 'local') return new LocalBlobStore(blob.dir);
  return new S3BlobStore({ client: createS3Client(s3!), bucket: blob.bucket, prefix: blob.prefix });
}

/** Where openLanceIndex connects: DOCSEARCH_INDEX_URI with its object-store or LanceDB Cloud settings. */
export function indexLocationOptions(cfg: Config): Pick<LanceIndexOptions, 'uri' | 'storageOptions' | 'remote'> {
  const { index, s3 } = storageOf(cfg);
  switch (index.kind) {
    case 'local': return { uri: index.uri };
    case 's3': return { uri: index.uri, storageOptions: lanceS3StorageOptions(s3!) };
    // gs://: credentials from GOOGLE_SERVICE_ACCOUNT / GOOGLE_APPLICATION_CREDENTIALS (Lance's object store).
    case 'gs': return { uri: index.uri };
    case 'db': return { uri: index.uri, remote: { apiKey: index.apiKey, region: index.region, hostOverride: index.hostOverride } };
  }
}

/**
 * Open the LanceDB index at DOCSEARCH_INDEX_URI (connecting to an object store already lists it).
 * @param extra further LanceIndexOptions (consistency interval, thresholds)
 * @throws Error naming DOCSEARCH_INDEX_URI when the location cannot be reached
 */
export async function openIndex(cfg: Config, extra: Omit<LanceIndexOptions, 'uri' | 'storageOptions' | 'remote'> = {}): Promise<LanceNamespaceIndex> {
  const where = indexLocationOptions(cfg);
  const { indexCache, s3 } = storageOf(cfg);
  // An s3:// index reads through the local read cache unless it is turned off (object-cache-proxy.ts).
  let proxy: ObjectCache | undefined;
  try {
    if (indexCache && s3) proxy = await ObjectCache.start({ ...indexCache, s3 });
    const storageOptions = proxy ? proxy.storageOptions() : where.storageOptions;
    return await openLanceIndex({ ...extra, ...where, storageOptions, readCache: proxy });
  } catch (err) {
    await proxy?.close().catch(() => undefined);
    throw new Error(`config: the index at ${where.uri} (DOCSEARCH_INDEX_URI) is not reachable: ${describeStorageError(err)}`, { cause: err });
  }
}

/**
 * Start-up check: the blob store and the index answer. Local directories are created if missing.
 * @throws Error naming DOCSEARCH_BLOB_URI or DOCSEARCH_INDEX_URI and the location, with the cause
 */
export async function checkStorage(blobs: BlobStore, index: NamespaceIndex, cfg: Config): Promise<void> {
  try {
    await blobs.probe();
  } catch (err) {
    throw new Error(`config: the blob store at ${blobs.describe()} (DOCSEARCH_BLOB_URI) is not reachable: ${describeStorageError(err)}`, { cause: err });
  }
  try {
    await index.probe();
  } catch (err) {
    throw new Error(`config: the index at ${storageOf(cfg).index.uri} (DOCSEARCH_INDEX_URI) is not reachable: ${describeStorageError(err)}`, { cause: err });
  }
}
