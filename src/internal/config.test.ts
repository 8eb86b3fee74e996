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
  ];
  for (const [env, re] of cases) assert.throws(() => loadConfig(env), re, JSON.stringify(env));
});

test('allowed private hosts are split on commas', () => {
  assert.deepEqual(loadConfig({ DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1, 10.0.0.0/8 ,minio' }).allowedPrivateHosts, ['127.0.0.1', '10.0.0.0/8', 'minio']);
});
