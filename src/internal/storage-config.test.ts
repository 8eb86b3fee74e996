// Storage locations: local directories under the data dir by default, object-store URIs when
// configured, and every malformed value refused at start-up with its variable named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { lanceS3StorageOptions, parseStorageConfig } from './storage-config.ts';
import { loadConfig } from './config.ts';

test('without settings, blobs and index are directories under the data dir and no S3 settings exist', () => {
  const s = parseStorageConfig({}, '/srv/docsearch');
  assert.deepEqual(s.blob, { kind: 'local', dir: '/srv/docsearch/blobs' });
  assert.deepEqual(s.index, { kind: 'local', uri: '/srv/docsearch/lance' });
  assert.equal(s.s3, undefined);
  assert.deepEqual(loadConfig({ DOCSEARCH_DATA_DIR: '/tmp/x' }).storage?.index, { kind: 'local', uri: '/tmp/x/lance' });
});

test('explicit local paths are resolved against the working directory', () => {
  const s = parseStorageConfig({ DOCSEARCH_BLOB_URI: 'b', DOCSEARCH_INDEX_URI: '/abs/idx' }, '/srv/d');
  assert.deepEqual(s.blob, { kind: 'local', dir: path.resolve('b') });
  assert.deepEqual(s.index, { kind: 'local', uri: '/abs/idx' });
});

test('s3:// URIs give bucket and prefix, and the S3 settings with path style for a custom endpoint', () => {
  const s = parseStorageConfig({
    DOCSEARCH_BLOB_URI: 's3://my-bucket/docsearch/blobs/',
    DOCSEARCH_INDEX_URI: 's3://my-bucket/docsearch/index',
    DOCSEARCH_S3_ENDPOINT: 'http://127.0.0.1:9000',
    DOCSEARCH_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    DOCSEARCH_S3_SECRET_ACCESS_KEY: 'secret',
  }, '/d');
  assert.deepEqual(s.blob, { kind: 's3', bucket: 'my-bucket', prefix: 'docsearch/blobs' });
  assert.deepEqual(s.index, { kind: 's3', uri: 's3://my-bucket/docsearch/index', bucket: 'my-bucket', prefix: 'docsearch/index' });
  assert.deepEqual(s.s3, {
    endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret',
    sessionToken: undefined, forcePathStyle: true, allowHttp: true,
  });
  assert.deepEqual(lanceS3StorageOptions(s.s3!), {
    region: 'us-east-1', endpoint: 'http://127.0.0.1:9000', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: 'secret',
    allow_http: 'true', virtual_hosted_style_request: 'false',
  });
});

test('on AWS itself (no endpoint) the region falls back to AWS_REGION and credentials to the default chain', () => {
  const s = parseStorageConfig({ DOCSEARCH_BLOB_URI: 's3://bucket-a', AWS_REGION: 'eu-west-1' }, '/d');
  assert.deepEqual(s.blob, { kind: 's3', bucket: 'bucket-a', prefix: '' });
  assert.equal(s.s3?.region, 'eu-west-1');
  assert.equal(s.s3?.forcePathStyle, false);
  assert.equal(s.s3?.allowHttp, false);
  assert.equal(s.s3?.accessKeyId, undefined);
  assert.deepEqual(lanceS3StorageOptions(s.s3!), { region: 'eu-west-1' });
});

test('gs:// and db:// index URIs', () => {
  assert.deepEqual(parseStorageConfig({ DOCSEARCH_INDEX_URI: 'gs://idx-bucket/p' }, '/d').index,
    { kind: 'gs', uri: 'gs://idx-bucket/p', bucket: 'idx-bucket', prefix: 'p' });
  assert.deepEqual(parseStorageConfig({ DOCSEARCH_INDEX_URI: 'db://prod-docs', DOCSEARCH_LANCEDB_API_KEY: 'sk_x', DOCSEARCH_LANCEDB_REGION: 'us-east-1' }, '/d').index,
    { kind: 'db', uri: 'db://prod-docs', apiKey: 'sk_x', region: 'us-east-1', hostOverride: undefined });
});

test('malformed storage settings are refused with the variable named', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ DOCSEARCH_BLOB_URI: 's3://' }, /DOCSEARCH_BLOB_URI must look like s3:\/\/bucket/],
    [{ DOCSEARCH_BLOB_URI: 's3://Upper_Case/x' }, /DOCSEARCH_BLOB_URI/],
    [{ DOCSEARCH_BLOB_URI: 's3://bucket/../x' }, /DOCSEARCH_BLOB_URI has an invalid key prefix/],
    [{ DOCSEARCH_BLOB_URI: 'gs://bucket/x' }, /DOCSEARCH_BLOB_URI must be a local path or s3:/],
    [{ DOCSEARCH_INDEX_URI: 'az://c/x' }, /DOCSEARCH_INDEX_URI must be a local path, s3:/],
    [{ DOCSEARCH_INDEX_URI: 'db://prod' }, /DOCSEARCH_LANCEDB_API_KEY is required/],
    [{ DOCSEARCH_INDEX_URI: 'db://a/b', DOCSEARCH_LANCEDB_API_KEY: 'k' }, /db:\/\/<database>/],
    [{ DOCSEARCH_BLOB_URI: 's3://bucket', DOCSEARCH_S3_ENDPOINT: 'minio:9000' }, /DOCSEARCH_S3_ENDPOINT must be an http\(s\)/],
    [{ DOCSEARCH_BLOB_URI: 's3://bucket', DOCSEARCH_S3_ACCESS_KEY_ID: 'AKIA' }, /must be set together/],
    [{ DOCSEARCH_BLOB_URI: 's3://bucket', DOCSEARCH_S3_REGION: 'EU West' }, /DOCSEARCH_S3_REGION/],
    [{ DOCSEARCH_BLOB_URI: 's3://bucket', DOCSEARCH_S3_FORCE_PATH_STYLE: 'maybe' }, /DOCSEARCH_S3_FORCE_PATH_STYLE must be true or false/],
    [{ DOCSEARCH_BLOB_URI: 's3://bucket', DOCSEARCH_S3_ENDPOINT: 'http://h:1', DOCSEARCH_S3_ALLOW_HTTP: 'false' }, /DOCSEARCH_S3_ALLOW_HTTP=false/],
  ];
  for (const [env, re] of cases) {
    assert.throws(() => loadConfig(env), re, JSON.stringify(env));
  }
});

test('an s3:// index gets the read cache (256 MiB memory, 4 GiB disk under the data dir) unless both sizes are 0', () => {
  const s3 = { DOCSEARCH_INDEX_URI: 's3://my-bucket/index' };
  assert.deepEqual(parseStorageConfig(s3, '/d').indexCache, { memoryBytes: 256 * 2 ** 20, diskBytes: 4096 * 2 ** 20, dir: '/d/index-cache' });
  assert.deepEqual(parseStorageConfig({ ...s3, DOCSEARCH_INDEX_CACHE_MEMORY_MB: '0', DOCSEARCH_INDEX_CACHE_DIR: '/cache' }, '/d').indexCache,
    { memoryBytes: 0, diskBytes: 4096 * 2 ** 20, dir: '/cache' });
  assert.equal(parseStorageConfig({ ...s3, DOCSEARCH_INDEX_CACHE_MEMORY_MB: '0', DOCSEARCH_INDEX_CACHE_DISK_MB: '0' }, '/d').indexCache, undefined);
  assert.equal(parseStorageConfig({}, '/d').indexCache, undefined, 'a local index reads its own disk');
  assert.throws(() => parseStorageConfig({ ...s3, DOCSEARCH_INDEX_CACHE_DISK_MB: '1.5' }, '/d'), /DOCSEARCH_INDEX_CACHE_DISK_MB/);
});
