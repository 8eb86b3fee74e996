// Original files and extracted assets live in a blob store: a local directory by default, an
// S3-compatible bucket when configured (DESIGN.md §2). Writes are streamed and atomic (temp file +
// rename) so a crash never leaves a half-written blob under its final key.
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
}

function safeKey(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(key) || key.split('/').some((p) => p === '..' || p === '')) {
    throw new Error(`invalid blob key: ${key}`);
  }
  return key;
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
    let bytes = 0;
    const max = opts.maxBytes ?? Infinity;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        if (bytes > max) cb(opts.onLimit ? opts.onLimit() : new Error('blob too large'));
        else cb(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, fs.createWriteStream(tmp));
      await fsp.rename(tmp, dest);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return bytes;
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
}
