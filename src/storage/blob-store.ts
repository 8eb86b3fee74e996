// Original files and extracted assets live in a blob store: a local directory by default, an
// S3-compatible bucket when configured (DESIGN.md §2; s3-blob-store.ts). Writes are streamed and atomic
// (here temp file + rename) so a crash never leaves a half-written blob under its final key.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';

export interface BlobStore {
  /**
   * Stream `body` to `key`, aborting with `onLimit()`'s error once more than `maxBytes` arrive.
   * @returns bytes written
   */
  put(key: string, body: Readable, opts?: { maxBytes?: number; onLimit?: () => Error }): Promise<number>;
  /** Store a small buffer. */
  putBuffer(key: string, data: Buffer): Promise<void>;
  /** Whole blob as a buffer. @throws Error code ENOENT when absent. */
  get(key: string): Promise<Buffer>;
  /** Delete one key; idempotent. */
  delete(key: string): Promise<void>;
  /** Delete every key under a prefix (e.g. `projects/<id>/`); idempotent. */
  deletePrefix(prefix: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Readiness check (/readyz): the store can be reached and written. @throws the underlying error */
  probe(): Promise<void>;
  /** Where blobs live (a directory or s3://bucket/prefix/), for logs and /readyz. */
  describe(): string;
  /** Release connections; idempotent. */
  close(): Promise<void>;
}

/** Keys are relative paths of url-safe segments (no `..`, no empty segment). @throws Error otherwise */
export function safeKey(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(key) || key.split('/').some((p) => p === '..' || p === '')) {
    throw new Error(`invalid blob key: ${key}`);
  }
  return key;
}

/**
 * A pass-through that counts bytes and fails with `opts.onLimit()` (default Error 'blob too large') once
 * more than `opts.maxBytes` have passed; shared by the blob stores' put().
 */
export function byteCounter(opts: { maxBytes?: number; onLimit?: () => Error }): { stream: Transform; bytes(): number } {
  let bytes = 0;
  const max = opts.maxBytes ?? Infinity;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (bytes > max) cb(opts.onLimit ? opts.onLimit() : new Error('blob too large'));
      else cb(null, chunk);
    },
  });
  return { stream, bytes: () => bytes };
}

/** BlobStore on the local file system under `root`. */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, safeKey(key));
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number; onLimit?: () => Error } = {}): Promise<number> {
    const dest = this.file(key);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.tmp-${crypto.randomBytes(6).toString('hex')}`;
    const counter = byteCounter(opts);
    try {
      await pipeline(body, counter.stream, fs.createWriteStream(tmp));
      await fsp.rename(tmp, dest);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return counter.bytes();
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    const dest = this.file(key);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.tmp-${crypto.randomBytes(6).toString('hex')}`;
    await fsp.writeFile(tmp, data);
    await fsp.rename(tmp, dest);
  }

  async get(key: string): Promise<Buffer> {
    return fsp.readFile(this.file(key));
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.file(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    const p = prefix.replace(/\/+$/, '');
    await fsp.rm(this.file(p), { recursive: true, force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fsp.access(this.file(key));
      return true;
    } catch {
      return false;
    }
  }

  async probe(): Promise<void> {
    await fsp.mkdir(this.root, { recursive: true });
    await fsp.access(this.root, fs.constants.W_OK);
  }

  describe(): string {
    return this.root;
  }

  async close(): Promise<void> {}
}
