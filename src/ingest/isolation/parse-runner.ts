// Parse isolation: documents are parsed in child processes, never on the service's event loop, and each
// parse is bounded in time and memory. A pool of forked children (parse-child.ts; one per concurrent
// job) is reused across jobs. Per parse:
//  - time: after `timeoutMs` the child's whole process group (the child and any tesseract it started)
//    is killed -> ParseError 422 parse_timeout;
//  - memory: the child runs with --max-old-space-size, and its resident set (/proc/<pid>/status VmRSS,
//    polled every 100 ms; Buffers and native memory count too) over `maxMemoryMb` kills it ->
//    ParseError 413 document_too_large; a V8 heap OOM crash maps to the same;
//  - any other crash of the child -> ParseError 415 unreadable_document.
// A zip bomb, a 10,000-page PDF or a pathological image therefore fails its own job and nothing else;
// the next parse gets a fresh child. Children are recycled after 100 parses to return fragmented memory.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ParseError, type ParsedDocument, type ParseInput } from '../parse/types.ts';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './limits.ts';
import type { ChunkedDocument } from '../chunking/chunker.ts';
import { CHUNK_PART, type ParseReply, type ParseRequest, type ParseTimings } from './parse-protocol.ts';

export { CHUNK_PART };

export interface ParseRunnerOptions {
  /** Children kept (= parses at once). Default 2. */
  size?: number;
  /** Wall-clock bound per document, ms. Default 600,000. */
  timeoutMs?: number;
  /** Resident-memory bound per child, MB. Default 2,048. */
  maxMemoryMb?: number;
  limits?: Partial<ParseLimits>;
}

export interface ParseStats {
  ms: number;
  /** Highest resident set size of the child seen during this parse, bytes. */
  peakRssBytes: number;
  /** Where the child's time went (ms); `ms` minus their sum is the transfer to and from the child. */
  timings?: ParseTimings;
}

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'parse-child.ts');
/** Parses a child serves before it is replaced, so what parser libraries leave behind does not accumulate. */
const RECYCLE_AFTER = 100;
/** How often a parsing child's resident memory is read (/proc) against the memory bound. */
const POLL_MS = 100;

function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  uses: number;
  busy: boolean;
}

export class ParseRunner {
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly maxMemoryMb: number;
  private readonly limits: ParseLimits;
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  private seq = 0;
  private closed = false;

  constructor(opts: ParseRunnerOptions = {}) {
    this.size = Math.max(1, opts.size ?? 2);
    this.timeoutMs = opts.timeoutMs ?? 600_000;
    this.maxMemoryMb = opts.maxMemoryMb ?? 2048;
    // A document's OCR may use as many tesseract processes as the pool has children.
    this.limits = { ...DEFAULT_PARSE_LIMITS, maxInflatedBytes: Math.floor(this.maxMemoryMb / 2) * 2 ** 20, ocrConcurrency: this.size, ...opts.limits };
  }

  private spawn(): Slot {
    const child = fork(CHILD, [], {
      execArgv: ['--import', import.meta.resolve('tsx'), `--max-old-space-size=${this.maxMemoryMb}`],
      serialization: 'advanced',
      detached: true, // own process group: a kill takes tesseract children with it
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      env: { ...process.env, LANCEDB_LOG: 'error' },
    });
    const ready = new Promise<void>((resolve, reject) => {
      const onMsg = (m: unknown) => {
        if ((m as { ready?: boolean })?.ready) {
          child.off('message', onMsg);
          resolve();
        }
      };
      child.on('message', onMsg);
      child.once('exit', (code) => reject(new Error(`parse child exited during start-up (${code})`)));
      child.once('error', reject);
    });
    ready.catch(() => undefined);
    const slot: Slot = { child, ready, uses: 0, busy: false };
    // A child that dies while idle leaves the pool (a busy one is handled by its parse).
    child.once('exit', () => {
      const i = this.slots.indexOf(slot);
      if (i >= 0 && !slot.busy) this.slots.splice(i, 1);
    });
    return slot;
  }

  private kill(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    try {
      if (slot.child.pid) process.kill(-slot.child.pid, 'SIGKILL');
    } catch {
      slot.child.kill('SIGKILL');
    }
  }

  private async acquire(): Promise<Slot> {
    const free = this.slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return free;
    }
    if (this.slots.length < this.size) {
      const slot = this.spawn();
      slot.busy = true;
      this.slots.push(slot);
      return slot;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot, healthy: boolean): void {
    if (!healthy || slot.uses >= RECYCLE_AFTER || this.closed) this.kill(slot);
    else slot.busy = false;
    const next = this.waiting.shift();
    if (!next) return;
    const reuse = this.slots.find((s) => !s.busy);
    if (reuse) {
      reuse.busy = true;
      next(reuse);
    } else {
      const fresh = this.spawn();
      fresh.busy = true;
      this.slots.push(fresh);
      next(fresh);
    }
  }

  /**
   * Parse a document in a child process.
   * @throws ParseError from the parser, or 422 parse_timeout / 413 document_too_large / 415
   *         unreadable_document (crash) from the bounds; Error('aborted') when `signal` fires
   */
  async parse(input: ParseInput, opts: { signal?: AbortSignal } = {}): Promise<ParsedDocument> {
    return (await this.parseWithStats(input, opts)).doc;
  }

  /**
   * Parse and chunk (chunkDocument, default options) in the child: nothing whose cost grows with the
   * document runs on this thread. `doc.blocks` holds only the table and image blocks.
   * @param opts.onPages called with pages read so far and the page total while a paged format (PDF) is read
   * @throws as `parse`
   */
  async parseAndChunk(input: ParseInput, opts: { signal?: AbortSignal; onPages?: (parsed: number, total: number) => void } = {}): Promise<{ doc: ParsedDocument; chunked: ChunkedDocument; stats: ParseStats }> {
    const { doc, chunked, stats } = await this.parseWithStats(input, { ...opts, chunk: true });
    return { doc, chunked: chunked!, stats };
  }

  /** As `parse` (with `chunk`: as `parseAndChunk`), also reporting wall time and the child's peak resident memory. */
  async parseWithStats(input: ParseInput, opts: { signal?: AbortSignal; chunk?: boolean; onPages?: (parsed: number, total: number) => void } = {}): Promise<{ doc: ParsedDocument; chunked?: ChunkedDocument; stats: ParseStats }> {
    if (this.closed) throw new Error('parse runner is closed');
    const slot = await this.acquire();
    slot.uses++;
    let started = Date.now();
    let peak = 0;
    let healthy = false;
    try {
      await slot.ready;
      started = Date.now(); // child start-up is not the document's time
      const pid = slot.child.pid!;
      peak = rssOf(pid) ?? 0;
      let chunked: ChunkedDocument | undefined;
      let timings: ParseTimings | undefined;
      const doc = await new Promise<ParsedDocument>((resolve, reject) => {
        const id = ++this.seq;
        let done = false;
        const finish = (err: Error | null, value?: ParsedDocument) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          clearInterval(poll);
          slot.child.off('message', onMessage);
          slot.child.off('exit', onExit);
          opts.signal?.removeEventListener('abort', onAbort);
          if (err) reject(err);
          else resolve(value!);
        };
        const parts: ChunkedDocument['chunks'][] = [];
        const onMessage = (m: ParseReply) => {
          if (m?.id !== id) return;
          if ('part' in m) return void parts.push(m.part);
          if ('pages' in m) return void opts.onPages?.(m.pages.parsed, m.pages.total);
          if (m.ok) {
            chunked = m.chunked && { ...m.chunked, chunks: parts.flat() };
            timings = m.timings;
            return finish(null, reviveDoc(m.doc as ParsedDocument));
          }
          if (m.parseError) return finish(new ParseError(m.parseError.jobCode, m.parseError.errorCode, m.parseError.message));
          return finish(new ParseError(415, 'unreadable_document', `The file could not be read: ${m.message.split('\n')[0]}`));
        };
        const onExit = (code: number | null, sig: string | null) => {
          const oom = peak > this.maxMemoryMb * 1024 * 1024 * 0.8 || code === 134 || sig === 'SIGABRT';
          finish(oom
            ? new ParseError(413, 'document_too_large', `Parsing the file needed more than ${this.maxMemoryMb} MB of memory.`)
            : new ParseError(415, 'unreadable_document', `The parser stopped on this file (exit ${code ?? sig}).`));
        };
        const onAbort = () => {
          this.kill(slot);
          finish(new Error('aborted'));
        };
        const timer = setTimeout(() => {
          this.kill(slot);
          finish(new ParseError(422, 'parse_timeout', `Parsing the file took longer than ${Math.round(this.timeoutMs / 1000)} s.`));
        }, this.timeoutMs);
        const poll = setInterval(() => {
          const rss = rssOf(pid);
          if (rss === null) return;
          peak = Math.max(peak, rss);
          if (rss > this.maxMemoryMb * 1024 * 1024) {
            this.kill(slot);
            finish(new ParseError(413, 'document_too_large', `Parsing the file needed more than ${this.maxMemoryMb} MB of memory.`));
          }
        }, POLL_MS);
        slot.child.on('message', onMessage);
        slot.child.once('exit', onExit);
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        const req: ParseRequest = { id, data: input.data, filename: input.filename, mediaType: input.mediaType, limits: this.limits, chunk: opts.chunk };
        slot.child.send(req, (err) => { if (err) finish(err); });
      });
      healthy = true;
      return { doc, chunked, stats: { ms: Date.now() - started, peakRssBytes: peak, timings } };
    } catch (err) {
      // A parser's own ParseError (a page count or a zip's declared size over its limit, too) leaves the
      // child healthy; bounds and crashes already killed it and took it out of the pool.
      healthy = err instanceof ParseError && slot.child.exitCode === null && slot.child.signalCode === null && this.slots.includes(slot);
      throw err;
    } finally {
      this.release(slot, healthy);
    }
  }

  /** Kill every child; pending and later parses fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const slot of [...this.slots]) this.kill(slot);
  }
}

/** Buffers come back from the child as plain Uint8Arrays: make them Buffers again. */
function reviveDoc(doc: ParsedDocument): ParsedDocument {
  for (const img of doc.images ?? []) {
    const d = img.data as unknown as Uint8Array;
    if (!Buffer.isBuffer(d)) img.data = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  }
  return doc;
}
