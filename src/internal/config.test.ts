// Config is validated once at start-up and a bad value names its key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from './config.ts';

test('defaults are the embedded ones', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.match(c.dataDir, /data$/);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.role, 'all');
  assert.equal(c.maxUploadBytes, 50 * 1024 * 1024);
  assert.deepEqual(c.allowedPrivateHosts, []);
  assert.equal(c.admission?.searchPerMin, 1200);
  assert.equal(c.admission?.streamsPerProject, 32);
  assert.deepEqual(c.scaleOut, { writerLeaseMs: 15_000, indexSyncMs: 100, localTakeover: true });
});

test('scale-out settings: writer lease TTL, index sync interval (0 = every read), same-host take-over', () => {
  const c = loadConfig({ DOCSEARCH_WRITER_LEASE_MS: '3000', DOCSEARCH_INDEX_SYNC_MS: '0', DOCSEARCH_WRITER_LEASE_LOCAL_TAKEOVER: 'off' });
  assert.deepEqual(c.scaleOut, { writerLeaseMs: 3000, indexSyncMs: 0, localTakeover: false });
});

test('admission limits are configurable, 0 turning a rate limit off', () => {
  const c = loadConfig({ DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '7', DOCSEARCH_LOGIN_BACKOFF_MAX_MS: '5000' });
  assert.equal(c.admission?.searchPerMin, 0);
  assert.equal(c.admission?.ingestPerMin, 7);
  assert.equal(c.admission?.loginBackoffMaxMs, 5000);
});

test('bad values are refused with the key named', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DOCSEARCH_DATABASE_URL: 'mysql://x' }, /DOCSEARCH_DATABASE_URL/],
    [{ DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: 'svc_prod_ds_abc' }, /DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY/],
    [{ DOCSEARCH_ROLE: 'both' }, /DOCSEARCH_ROLE/],
    [{ DOCSEARCH_SECRET: 'short' }, /DOCSEARCH_SECRET/],
    [{ DOCSEARCH_WORKER_CONCURRENCY: '0' }, /DOCSEARCH_WORKER_CONCURRENCY/],
    [{ DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '-1' }, /DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN/],
    [{ DOCSEARCH_LOGIN_FREE_FAILURES: '0' }, /DOCSEARCH_LOGIN_FREE_FAILURES/],
    [{ DOCSEARCH_WRITER_LEASE_MS: '10' }, /DOCSEARCH_WRITER_LEASE_MS/],
    [{ DOCSEARCH_INDEX_SYNC_MS: '-5' }, /DOCSEARCH_INDEX_SYNC_MS/],
  ];
  for (const [env, re] of cases) assert.throws(() => loadConfig(env), re, JSON.stringify(env));
});

test('allowed private hosts are split on commas', () => {
  assert.deepEqual(loadConfig({ DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1, 10.0.0.0/8 ,minio' }).allowedPrivateHosts, ['127.0.0.1', '10.0.0.0/8', 'minio']);
});

test('parse memory: default from the host memory shared by the parse slots; configurable', () => {
  const gb = 2 ** 30;
  assert.equal(loadConfig({}, { memoryBytes: 2 * gb }).parse?.maxMemoryMb, 341, '2 GB host, 2 + 1 slots');
  assert.equal(loadConfig({}, { memoryBytes: 1 * gb }).parse?.maxMemoryMb, 256, 'never below 256 MB');
  assert.equal(loadConfig({}, { memoryBytes: 64 * gb }).parse?.maxMemoryMb, 2048, 'never above 2 GB');
  assert.equal(loadConfig({ DOCSEARCH_WORKER_CONCURRENCY: '4', DOCSEARCH_WORKER_FAIR_SLOTS: '0' }, { memoryBytes: 8 * gb }).parse?.maxMemoryMb, 1024);
  assert.equal(loadConfig({ DOCSEARCH_PARSE_MAX_MEMORY_MB: '700' }, { memoryBytes: 2 * gb }).parse?.maxMemoryMb, 700);
  assert.equal(loadConfig({}).workerFairSlots, 1);
  assert.equal(loadConfig({}).admission?.inflightIngestsPerProject, 1000);
});
