// A read cache between LanceDB and an S3-compatible store. LanceDB OSS keeps index and file metadata in
// memory (its Session caches) but reads data pages and index pages with ranged GETs on every query; on
// object storage each of them is an HTTP round trip (13 per warm search measured on a small namespace).
// This loopback S3 endpoint, which LanceDB is pointed at, serves GETs of immutable Lance files (data
// files, index files, deletion files: each written once under a unique name) from a BlockCache in
// memory and on local disk, and forwards every other request (manifests, listings, writes, deletes) to
// the store, signed again with the deployment's credentials (s3-upstream.ts). Manifests are never
// cached, so which version a reader sees is decided by the store exactly as without the cache, and
// nothing cached can be stale: a file's bytes never change under its name.
// Only this process can use the endpoint: every request path starts with its random token.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockCache, type BlockCacheOptions, type ObjectMeta } from './block-cache.ts';
import { S3Upstream } from './s3-upstream.ts';
import type { S3Settings } from '../internal/storage-config.ts';

/** Cache block: 1 MiB, so a small table's file is one block and one GET, and a large file's ranged reads
 *  (LanceDB's I/O requests are 4 KiB–8 MiB) fetch few blocks; object storage latency, not bytes, dominates. */
export const BLOCK_BYTES = 1024 * 1024;
/** Keys under a Lance dataset that are written once under a unique name and never rewritten. */
const IMMUTABLE = /\.lance\/(data|_indices|_deletions)\/[^?]+$/;

export interface ObjectCacheOptions extends BlockCacheOptions {
  /** The real store. */
  s3: S3Settings;
  /** Loopback port to listen on; 0 or absent = a free one. A restarted thread takes its predecessor's. */
  port?: number;
  /** Path token to require (32 hex characters); absent = a new random one. */
  token?: string;
}

const xmlError = (res: http.ServerResponse, status: number, code: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
};

const headerOf = (h: Record<string, string | string[] | undefined>, k: string) => {
  const v = h[k];
  return Array.isArray(v) ? v[0] : v;
};

type Range = { start?: number; end?: number; suffix?: number };

/** `bytes=a-b` / `bytes=a-` / `bytes=-n`; null = no Range, undefined = a form this cache does not serve. */
function parseRange(raw: string | undefined): Range | null | undefined {
  if (!raw) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(raw.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') return { suffix: Number(m[2]) };
  return { start: Number(m[1]), end: m[2] === '' ? undefined : Number(m[2]) };
}

/** Inclusive byte span a Range asks of an object of `size` bytes (no Range = all); null when unsatisfiable or empty. */
function byteSpan(size: number, range: Range | null): { start: number; end: number } | null {
  const start = range?.suffix !== undefined ? Math.max(0, size - range.suffix) : (range?.start ?? 0);
  const end = Math.min(size - 1, range?.end ?? size - 1);
  return start <= end ? { start, end } : null;
}

/** The part of block `index` inside `span` (no copy). */
const slice = (block: Buffer, index: number, span: { start: number; end: number }) => {
  const base = index * BLOCK_BYTES;
  return block.subarray(Math.max(0, span.start - base), Math.min(block.length, span.end - base + 1));
};

function respond(res: http.ServerResponse, meta: ObjectMeta, span: { start: number; end: number }, range: Range | null, parts: Buffer[]): void {
  const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  const headers: http.OutgoingHttpHeaders = {
    'content-length': body.length, 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes',
    etag: meta.etag, 'last-modified': meta.lastModified,
  };
  if (range) headers['content-range'] = `bytes ${span.start}-${span.end}/${meta.size}`;
  res.writeHead(range ? 206 : 200, headers);
  res.end(body);
}

export class ObjectCacheProxy {
  /** Random first path segment of the endpoint LanceDB is given; requests without it are refused. */
  readonly token: string;
  /** Path prefix every request must start with: the token, then the bucket. */
  private readonly prefix: string;
  readonly cache: BlockCache;
  private readonly upstream: S3Upstream;
  private readonly server: http.Server;
  private readonly inflight = new Map<string, Promise<void>>();

  constructor(private readonly opts: ObjectCacheOptions) {
    this.token = opts.token ?? crypto.randomBytes(16).toString('hex');
    this.prefix = `/${this.token}/`;
    this.cache = new BlockCache(opts);
    this.upstream = new S3Upstream(opts.s3);
    this.server = http.createServer((req, res) => {
      req.on('error', () => res.destroy());
      this.handle(req, res).catch((err) => {
        if (!res.headersSent) xmlError(res, 502, 'InternalError', String((err as Error)?.message ?? err).replace(/[<&]/g, ' '));
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = 30_000;
  }

  /**
   * Listen on 127.0.0.1 (`opts.port`, else a free port).
   * @returns the endpoint origin
   * @throws Error (EADDRINUSE) when the given port is taken
   */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => this.server.once('error', reject).listen(this.opts.port ?? 0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.cache.close();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
    await this.upstream.close();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (!url.startsWith(this.prefix)) return xmlError(res, 403, 'AccessDenied', 'Unknown endpoint.');
    const raw = url.slice(this.prefix.length - 1);
    const q = raw.indexOf('?');
    const pathname = q < 0 ? raw : raw.slice(0, q);
    const search = q < 0 ? '' : raw.slice(q);
    const range = parseRange(req.headers.range);
    const conditional = req.headers['if-match'] || req.headers['if-none-match'] || req.headers['if-modified-since'] || req.headers['if-unmodified-since'];
    if (req.method === 'GET' && !search && !conditional && range !== undefined && IMMUTABLE.test(pathname)) {
      // Most reads of a warm search are answered here without leaving the thread's current turn.
      if (this.serveFromMemory(pathname, range, res)) return;
      if (await this.serveCached(pathname, range, res)) return;
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
    const up = await this.upstream.send(req.method ?? 'GET', pathname, search, req.headers, hasBody ? req : undefined);
    const headers = { ...up.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    delete headers['transfer-encoding'];
    res.writeHead(up.status, headers as http.OutgoingHttpHeaders);
    // A store connection or a client that goes away mid-body ends the other side, never the thread.
    up.body.on('error', () => res.destroy());
    res.on('close', () => { if (!up.body.readableEnded) up.body.destroy(); });
    up.body.pipe(res);
  }

  /** Answer from the memory tier alone, synchronously. @returns false when anything is not in memory */
  private serveFromMemory(key: string, range: Range | null, res: http.ServerResponse): boolean {
    const meta = this.cache.memoryMeta(key);
    const span = meta && byteSpan(meta.size, range);
    if (!meta || !span) return false;
    const parts: Buffer[] = [];
    for (let b = Math.floor(span.start / BLOCK_BYTES); b <= Math.floor(span.end / BLOCK_BYTES); b++) {
      const block = this.cache.memoryBlock(key, b);
      if (!block) return false;
      parts.push(slice(block, b, span));
    }
    respond(res, meta, span, range, parts);
    return true;
  }

  /**
   * Answer a GET of an immutable object from the block cache, fetching missing blocks from the store.
   * @returns false when the store's answer is not a plain success (the caller forwards the request as is)
   */
  private async serveCached(key: string, range: Range | null, res: http.ServerResponse): Promise<boolean> {
    let meta = await this.cache.getMeta(key);
    if (!meta) {
      // The first block fetched tells the object's size (Content-Range) and validators.
      const first = range?.suffix !== undefined ? 0 : Math.floor((range?.start ?? 0) / BLOCK_BYTES);
      if (!(await this.fetchBlocks(key, first, first))) return false;
      meta = await this.cache.getMeta(key);
      if (!meta) return false;
    }
    const span = byteSpan(meta.size, range);
    if (!span) return false; // unsatisfiable: the store answers 416
    const parts: Buffer[] = [];
    const lastBlock = Math.floor(span.end / BLOCK_BYTES);
    for (let b = Math.floor(span.start / BLOCK_BYTES); b <= lastBlock; b++) {
      let block = await this.cache.get(key, b);
      if (!block) {
        if (!(await this.fetchBlocks(key, b, lastBlock))) return false;
        block = await this.cache.get(key, b);
        if (!block) return false;
      }
      parts.push(slice(block, b, span));
    }
    respond(res, meta, span, range, parts);
    return true;
  }

  /** Fetch blocks first..last of `key` in one ranged GET (concurrent callers share it). @returns false on a non-2xx answer */
  private async fetchBlocks(key: string, first: number, last: number): Promise<boolean> {
    const id = `${key}#${first}`;
    const pending = this.inflight.get(id);
    if (pending) {
      await pending;
      return true;
    }
    let ok = true;
    const run = (async () => {
      const up = await this.upstream.send('GET', key, '', { range: `bytes=${first * BLOCK_BYTES}-${(last + 1) * BLOCK_BYTES - 1}` });
      if (up.status !== 200 && up.status !== 206) {
        await up.body.dump();
        ok = false;
        return;
      }
      const data = Buffer.from(await up.body.arrayBuffer());
      const total = up.status === 200 ? data.length : Number(/\/(\d+)$/.exec(headerOf(up.headers, 'content-range') ?? '')?.[1]);
      const from = up.status === 200 ? 0 : first * BLOCK_BYTES;
      const meta: ObjectMeta = { size: total, etag: headerOf(up.headers, 'etag') ?? '""', lastModified: headerOf(up.headers, 'last-modified') ?? new Date(0).toUTCString() };
      if (!Number.isFinite(total)) { ok = false; return; }
      this.cache.stats.misses += Math.max(1, Math.ceil(data.length / BLOCK_BYTES)); // blocks read from the store
      this.cache.setMeta(key, meta);
      // Blocks of a longer run are copied out, so one cached block does not keep the whole run alive.
      const whole = data.length <= BLOCK_BYTES;
      for (let at = 0; at < data.length; at += BLOCK_BYTES) {
        const part = data.subarray(at, at + BLOCK_BYTES);
        this.cache.set(key, (from + at) / BLOCK_BYTES, whole ? part : Buffer.from(part));
      }
      if (data.length === 0) this.cache.set(key, 0, Buffer.alloc(0));
    })();
    for (let b = first; b <= last; b++) this.inflight.set(`${key}#${b}`, run);
    try {
      await run;
    } finally {
      for (let b = first; b <= last; b++) if (this.inflight.get(`${key}#${b}`) === run) this.inflight.delete(`${key}#${b}`);
    }
    return ok;
  }
}
