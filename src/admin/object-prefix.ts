// One storage location the backup of a PostgreSQL + object storage deployment copies from or to: a local
// directory or an S3-compatible bucket under a key prefix (DOCSEARCH_BLOB_URI, DOCSEARCH_INDEX_URI, or the
// backup's own folders). The copy streams each object (never whole files in memory) and skips objects that
// disappear between the listing and the read, as a running service removes superseded index files.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../internal/storage-config.ts';
import { createS3Client } from '../storage/s3-blob-store.ts';

/** A set of objects addressed by relative keys (`a/b/c`), under a directory or a bucket prefix. */
export interface ObjectPrefix {
  /** `s3://bucket/prefix/` or the directory, for messages. */
  readonly where: string;
  /** Relative keys under `sub` ('' = everything), with their sizes in bytes, sorted by key. */
  list(sub?: string): Promise<{ key: string; size: number }[]>;
  /** The object's bytes as a stream, or undefined when it does not exist (any more). */
  read(key: string): Promise<Readable | undefined>;
  /** Write the object from a stream (replacing it). */
  write(key: string, body: Readable): Promise<void>;
  /** True when nothing is stored under the prefix. */
  isEmpty(): Promise<boolean>;
  close(): void;
}

/** A local directory as an ObjectPrefix (created on first write). */
export function localPrefix(dir: string): ObjectPrefix {
  return {
    where: dir,
    async list(sub = '') {
      const root = path.join(dir, sub);
      if (!fs.existsSync(root)) return [];
      const out: { key: string; size: number }[] = [];
      for (const e of await fs.promises.readdir(root, { withFileTypes: true, recursive: true })) {
        if (!e.isFile()) continue;
        const abs = path.join(e.parentPath, e.name);
        const size = await fs.promises.stat(abs).then((s) => s.size, () => -1);
        if (size >= 0) out.push({ key: path.relative(dir, abs).split(path.sep).join('/'), size });
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async read(key) {
      const file = path.join(dir, key);
      // Opened here so that a file removed since the listing is reported as absent, not as a stream error.
      const handle = await fs.promises.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      return handle?.createReadStream();
    },
    async write(key, body) {
      const file = path.join(dir, key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      await pipeline(body, fs.createWriteStream(file));
    },
    async isEmpty() {
      return !fs.existsSync(dir) || fs.readdirSync(dir).length === 0;
    },
    close() {},
  };
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Part size of multipart uploads (S3's minimum); smaller objects go up in one PutObject. */
const PART_BYTES = 5 * 1024 * 1024;

/** `bucket` under `prefix` ('' or without slashes at either end) on the S3-compatible service of `settings`. */
export function s3Prefix(settings: S3Settings, bucket: string, prefix: string): ObjectPrefix {
  const client: S3Client = createS3Client(settings);
  const base = prefix ? `${prefix}/` : '';
  return {
    where: `s3://${bucket}/${base}`,
    async list(sub = '') {
      const out: { key: string; size: number }[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: base + sub, ContinuationToken }));
        for (const o of page.Contents ?? []) out.push({ key: o.Key!.slice(base.length), size: o.Size ?? 0 });
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async read(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: base + key }));
        return res.Body as Readable;
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },
    async write(key, body) {
      await new Upload({ client, params: { Bucket: bucket, Key: base + key, Body: body }, partSize: PART_BYTES, leavePartsOnError: false }).done();
    },
    async isEmpty() {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: base, MaxKeys: 1 }));
      return (page.Contents ?? []).length === 0;
    },
    close() {
      client.destroy();
    },
  };
}

/**
 * Copy the objects of `from` under `sub` that `keep` accepts to the same keys in `to`, a few at a time.
 * Objects that vanish between the listing and the read are skipped.
 * @returns files and bytes copied
 */
export async function copyPrefix(from: ObjectPrefix, to: ObjectPrefix, sub = '', keep: (key: string) => boolean = () => true): Promise<{ files: number; bytes: number }> {
  const items = (await from.list(sub)).filter((o) => keep(o.key));
  let files = 0;
  let bytes = 0;
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      const body = await from.read(item.key);
      if (!body) continue;
      await to.write(item.key, body);
      files++;
      bytes += item.size;
    }
  };
  await Promise.all(Array.from({ length: COPY_CONCURRENCY }, worker));
  return { files, bytes };
}

/** Objects copied at once. */
const COPY_CONCURRENCY = 8;
