// The blob store of multi-node deployments (DESIGN.md §2): original files and extracted assets
// in an S3-compatible bucket under a key prefix. Atomicity matches LocalBlobStore: S3 makes an object
// visible only once its PutObject or CompleteMultipartUpload succeeds, so a crash or an aborted stream
// never leaves a partial blob under its key; an upload that fails is aborted (its parts removed).
import { pipeline, type Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { byteCounter, safeKey, type BlobStore } from './blob-store.ts';
import type { S3Settings } from '../internal/storage-config.ts';

/** Part size of multipart uploads: S3's minimum (5 MiB); smaller bodies go up in one PutObject. */
const PART_BYTES = 5 * 1024 * 1024;
/** Parts uploaded at once per blob (lib-storage's default is 4). */
const PART_CONCURRENCY = 4;
/** DeleteObjects takes at most 1000 keys per request (S3 API limit). */
const DELETE_BATCH = 1000;

/** An S3 client for `settings` (endpoint, region, optional static keys, path style). */
export function createS3Client(settings: S3Settings): S3Client {
  const cfg: S3ClientConfig = {
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    maxAttempts: 3,
    // Checksums only where the API requires them: S3-compatible servers (and older MinIO/Ceph) reject the
    // SDK's default CRC trailers on streamed bodies; integrity is still covered by Content-MD5 where needed.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  // Static keys when configured; otherwise the SDK's default chain (AWS_* env, profile, IRSA, instance role).
  if (settings.accessKeyId && settings.secretAccessKey) {
    cfg.credentials = { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, sessionToken: settings.sessionToken };
  }
  return new S3Client(cfg);
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** BlobStore on an S3-compatible bucket; keys are stored under `prefix` (e.g. `docsearch/blobs/`). */
export class S3BlobStore implements BlobStore {
  private readonly prefix: string;

  /**
   * @param opts.client an S3 client (see createS3Client); closed by close()
   * @param opts.bucket bucket name; it must exist (probe() checks it)
   * @param opts.prefix key prefix, '' or ending without a slash (one is added)
   */
  constructor(private readonly opts: { client: S3Client; bucket: string; prefix: string }) {
    this.prefix = opts.prefix ? `${opts.prefix.replace(/\/+$/, '')}/` : '';
  }

  private key(key: string): string {
    return this.prefix + safeKey(key);
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number; onLimit?: () => Error } = {}): Promise<number> {
    const Key = this.key(key);
    let sourceError: Error | undefined;
    const counter = byteCounter(opts);
    const counted = pipeline(body, counter.stream, (err) => { if (err) sourceError ??= err; });
    // Upload buffers one part: a body under PART_BYTES becomes one PutObject sent only after the stream
    // ended (nothing is written when the limit trips); a larger one is a multipart upload, aborted on error.
    const upload = new Upload({
      client: this.opts.client,
      params: { Bucket: this.opts.bucket, Key, Body: counted },
      partSize: PART_BYTES,
      queueSize: PART_CONCURRENCY,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // The stream's own error (limit, client disconnect) wins over a failed AbortMultipartUpload.
      throw sourceError ?? err;
    }
    if (sourceError) throw sourceError;
    return counter.bytes();
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    await this.opts.client.send(new PutObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key), Body: data, ContentLength: data.length }));
  }

  async get(key: string): Promise<Buffer> {
    try {
      const res = await this.opts.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) throw Object.assign(new Error(`blob not found: ${key}`), { code: 'ENOENT' });
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // DeleteObject succeeds for an absent key (S3 semantics), so this is idempotent as it stands.
    await this.opts.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const Prefix = `${this.key(prefix.replace(/\/+$/, ''))}/`;
    // Each page is deleted before the next is listed; with a token the listing continues past the
    // deleted keys, so one pass removes everything that existed when it started.
    let ContinuationToken: string | undefined;
    do {
      const page = await this.opts.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix, ContinuationToken, MaxKeys: DELETE_BATCH }));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (keys.length) {
        const res = await this.opts.client.send(new DeleteObjectsCommand({ Bucket: this.opts.bucket, Delete: { Objects: keys, Quiet: true } }));
        const failed = (res.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
        if (failed.length) throw new Error(`blob store: deleting ${failed.length} objects under ${Prefix} failed: ${failed[0].Code} ${failed[0].Message ?? ''}`);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.opts.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: this.key(key) }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  /** Readiness: the bucket answers HeadBucket with these credentials. @throws the SDK's error otherwise */
  async probe(): Promise<void> {
    await this.opts.client.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
  }

  /** Where blobs live, for logs and /readyz. */
  describe(): string {
    return `s3://${this.opts.bucket}/${this.prefix}`;
  }

  async close(): Promise<void> {
    this.opts.client.destroy();
  }
}
