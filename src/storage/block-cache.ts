// Byte blocks of immutable objects (Lance data files, index files, deletion files) in two tiers: a memory
// LRU for the hottest blocks and a directory on local disk, both bounded in bytes. The object-cache proxy
// (object-cache-proxy.ts) fills and reads it; nothing here knows about S3. Only objects that are never
// rewritten under their key may be stored, so an entry can never be stale and needs no invalidation.
// Several processes of a node may share the directory: files are written to a temporary name and renamed,
// a reader that loses a race with another process's eviction sees a miss, and every process re-scans the
// directory periodically and evicts the least recently used files until the whole directory fits the bound.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';

/** What the proxy needs to answer a GET for an object without asking the store: its size and validators. */
export interface ObjectMeta {
  size: number;
  etag: string;
  lastModified: string;
}

export interface BlockCacheOptions {
  /** Bytes of blocks kept in memory (0 = no memory tier). */
  memoryBytes: number;
  /** Bytes of blocks kept on disk across processes sharing `dir` (0 = no disk tier). */
  diskBytes: number;
  /** Directory of the disk tier (created on first write). */
  dir: string;
  /** How often the directory is re-scanned to enforce `diskBytes` over every process sharing it, ms. */
  rescanMs?: number;
}

/** Metadata entries kept in memory: each is a few dozen bytes; 100 000 covers far more files than any node reads. */
const META_ENTRIES = 100_000;
/** A disk hit refreshes the file's mtime (its LRU age) at most this often, so hot files are not evicted. */
const TOUCH_EVERY_MS = 60_000;
/** Default re-scan period of the disk tier. */
const RESCAN_MS = 60_000;

const digest = (key: string) => crypto.createHash('sha256').update(key).digest('hex').slice(0, 40);

export class BlockCache {
  private readonly memory: LRUCache<string, Buffer> | null;
  private readonly meta = new LRUCache<string, ObjectMeta>({ max: META_ENTRIES });
  /** Disk files this process knows of: name -> size and last touch; insertion order is LRU order. */
  private readonly files = new Map<string, { size: number; touched: number }>();
  /** Files being written by this process (counted once renamed into place). */
  private readonly writing = new Set<string>();
  /** Background disk writes not finished yet, awaited by `flush`. */
  private readonly pending = new Set<Promise<void>>();
  private diskUsed = 0;
  private readonly timer?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  /**
   * Block reads by where they were answered: the memory tier, the disk tier, or (`misses`, counted by the
   * caller that fetches them, object-cache-proxy.ts) the object store. For metrics and the benchmark.
   */
  readonly stats = { memoryHits: 0, diskHits: 0, misses: 0 };

  constructor(private readonly opts: BlockCacheOptions) {
    this.memory = opts.memoryBytes > 0
      ? new LRUCache<string, Buffer>({ maxSize: opts.memoryBytes, sizeCalculation: (b) => Math.max(1, b.length) })
      : null;
    if (opts.diskBytes > 0) {
      const rescan = () => { this.scanning ??= this.scan().finally(() => { this.scanning = undefined; }); };
      rescan();
      this.timer = setInterval(rescan, opts.rescanMs ?? RESCAN_MS);
      this.timer.unref();
    }
  }

  /** Size and validators of `key` when known (memory, then the disk tier's `.meta` file). */
  async getMeta(key: string): Promise<ObjectMeta | undefined> {
    const hit = this.meta.get(key);
    if (hit || this.opts.diskBytes <= 0) return hit;
    try {
      const m = JSON.parse(await fs.promises.readFile(this.file(key, 'meta'), 'utf8')) as ObjectMeta;
      this.meta.set(key, m);
      return m;
    } catch {
      return undefined;
    }
  }

  /** Remember `key`'s size and validators (also on disk, so a restarted process can answer from disk). */
  setMeta(key: string, m: ObjectMeta): void {
    if (this.meta.has(key)) return;
    this.meta.set(key, m);
    if (this.opts.diskBytes > 0) this.writeFile(key, 'meta', Buffer.from(JSON.stringify(m)));
  }

  /** Size and validators of `key` if the memory tier knows them (synchronous). */
  memoryMeta(key: string): ObjectMeta | undefined {
    return this.meta.get(key);
  }

  /** Block `index` of `key` if it is in the memory tier (synchronous). */
  memoryBlock(key: string, index: number): Buffer | undefined {
    const hit = this.memory?.get(`${key}#${index}`);
    if (hit) this.stats.memoryHits++;
    return hit;
  }

  /** Block `index` of `key`, or undefined on a miss in both tiers. */
  async get(key: string, index: number): Promise<Buffer | undefined> {
    const id = `${key}#${index}`;
    const inMemory = this.memory?.get(id);
    if (inMemory) {
      this.stats.memoryHits++;
      return inMemory;
    }
    if (this.opts.diskBytes > 0) {
      const name = this.name(key, String(index));
      try {
        const buf = await fs.promises.readFile(path.join(this.opts.dir, name.slice(0, 2), name));
        this.stats.diskHits++;
        this.touch(name, buf.length);
        this.memory?.set(id, buf);
        return buf;
      } catch {
        this.files.delete(name); // evicted by another process (or never written)
      }
    }
    return undefined;
  }

  /** Store block `index` of `key` in both tiers (the disk write runs in the background). */
  set(key: string, index: number, block: Buffer): void {
    this.memory?.set(`${key}#${index}`, block);
    if (this.opts.diskBytes > 0 && block.length <= this.opts.diskBytes) this.writeFile(key, String(index), block);
  }

  /** Resolves once every disk write started so far has landed (or failed); writes stay best-effort. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /** Stop the periodic re-scan. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private name(key: string, suffix: string): string {
    return `${digest(key)}.${suffix}`;
  }

  private file(key: string, suffix: string): string {
    const name = this.name(key, suffix);
    return path.join(this.opts.dir, name.slice(0, 2), name);
  }

  private touch(name: string, size: number): void {
    const now = Date.now();
    const known = this.files.get(name);
    this.files.delete(name);
    this.files.set(name, { size, touched: known?.touched ?? now });
    if (!known) this.diskUsed += size;
    else if (now - known.touched > TOUCH_EVERY_MS) {
      known.touched = now;
      this.files.set(name, known);
      const p = path.join(this.opts.dir, name.slice(0, 2), name);
      fs.promises.utimes(p, now / 1000, now / 1000).catch(() => undefined);
    }
  }

  /** Write via a temporary file and rename, so no process ever reads a partial block. */
  private writeFile(key: string, suffix: string, data: Buffer): void {
    const name = this.name(key, suffix);
    if (this.files.has(name) || this.writing.has(name)) return;
    const dir = path.join(this.opts.dir, name.slice(0, 2));
    const tmp = path.join(dir, `.${name}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`);
    this.writing.add(name);
    const write = (async () => {
      await fs.promises.mkdir(dir, { recursive: true });
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, path.join(dir, name));
      if (!this.files.has(name)) {
        this.files.set(name, { size: data.length, touched: Date.now() });
        this.diskUsed += data.length;
      }
      this.evictDisk();
    })().catch(() => {
      fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    }).finally(() => {
      this.writing.delete(name);
      this.pending.delete(write);
    });
    this.pending.add(write);
  }

  private forget(name: string): void {
    const f = this.files.get(name);
    if (!f) return;
    this.files.delete(name);
    this.diskUsed -= f.size;
  }

  /** Remove least recently used files until this process's view of the directory fits the bound. */
  private evictDisk(): void {
    for (const name of this.files.keys()) {
      if (this.diskUsed <= this.opts.diskBytes) break;
      this.forget(name);
      void fs.promises.rm(path.join(this.opts.dir, name.slice(0, 2), name), { force: true }).catch(() => undefined);
    }
  }

  /** Rebuild the view of the directory from disk (every process's files, oldest mtime first) and evict. */
  private async scan(): Promise<void> {
    const found: Array<{ name: string; size: number; mtime: number }> = [];
    let subdirs: string[] = [];
    try {
      subdirs = await fs.promises.readdir(this.opts.dir);
    } catch {
      return; // not created yet
    }
    for (const sub of subdirs) {
      let names: string[] = [];
      try {
        names = await fs.promises.readdir(path.join(this.opts.dir, sub));
      } catch {
        continue;
      }
      for (const name of names) {
        if (name.startsWith('.')) continue;
        try {
          const st = await fs.promises.stat(path.join(this.opts.dir, sub, name));
          found.push({ name, size: st.size, mtime: st.mtimeMs });
        } catch {
          // removed meanwhile
        }
      }
    }
    found.sort((a, b) => a.mtime - b.mtime);
    this.files.clear();
    this.diskUsed = 0;
    for (const f of found) {
      this.files.set(f.name, { size: f.size, touched: f.mtime });
      this.diskUsed += f.size;
    }
    this.evictDisk();
  }
}
