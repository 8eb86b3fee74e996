// Thin runner around the Tesseract OCR engine (Debian package `tesseract-ocr` plus one package per
// language, e.g. `tesseract-ocr-eng`; language data is never downloaded at run time). Tesseract runs as
// a child process per image: the image goes in on stdin, TSV (one row per word, with its box and
// confidence) or the OSD report comes back on stdout. Every run has a timeout and is killed on abort,
// so a pathological image cannot hang a parse. OMP_THREAD_LIMIT=1 keeps one run on one core (parallel
// OpenMP threads slow tesseract down on a loaded 2-core machine, per the tesseract FAQ); parallelism
// comes from running several processes instead (pages of a document, candidate languages), at most
// `ocrConcurrency` (parse limits; the parse pool's size) at once in this process.
import { execFile, spawn } from 'node:child_process';
import { parseLimits } from '../isolation/limits.ts';
import { traced } from './ocr-trace.ts';

/** One recognised word; box in pixels of the input image, conf 0..100. */
export interface OcrWord {
  text: string;
  left: number;
  top: number;
  width: number;
  height: number;
  conf: number;
  /** Tesseract's block / paragraph / line numbers (a line key is block.par.line). */
  block: number;
  par: number;
  line: number;
  /**
   * Whether tesseract's own text rendering puts a space before this word on its line (false inside
   * Chinese/Japanese runs and Korean words that TSV splits per syllable); undefined when unknown.
   */
  spaceBefore?: boolean;
}

export interface TesseractOptions {
  /** Tesseract language string, e.g. "eng" or "kor+eng" (first = primary). */
  langs: string;
  /** Page segmentation mode; default 3 (fully automatic, no OSD); 11 = sparse text (diagrams, slides). */
  psm?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const BINARY = process.env.DOCSEARCH_TESSERACT_BIN || 'tesseract';
const ENV = { ...process.env, OMP_THREAD_LIMIT: '1' };

/**
 * How long an answer of `tesseract --list-langs` is reused. Parse children live as long as the service,
 * so an answer kept for good hid a tesseract (or a language package) installed after start until a
 * restart. Asking costs one short process run; a missing tesseract is asked again soonest, since a job
 * that needs it fails meanwhile.
 */
export const LANGUAGES_TTL_MS = { installed: 60_000, missing: 5_000 } as const;

let installed: { langs: Promise<Set<string>>; at: number } | undefined;

/**
 * Languages whose traineddata is installed (`tesseract --list-langs`, "osd" left out); empty when
 * tesseract is missing. Asked when a job needs it and reused for LANGUAGES_TTL_MS (shorter while
 * missing), or asked afresh with `refresh`.
 */
export async function installedLanguages(refresh = false): Promise<Set<string>> {
  const cached = installed;
  if (cached && !refresh) {
    const langs = await cached.langs;
    const ttl = langs.size ? LANGUAGES_TTL_MS.installed : LANGUAGES_TTL_MS.missing;
    if (Date.now() - cached.at < ttl) return langs;
    if (installed !== cached) return installed!.langs; // another caller is asking already
  }
  const fresh = {
    at: Date.now(),
    langs: new Promise<Set<string>>((resolve) => {
      execFile(BINARY, ['--list-langs'], { env: ENV, timeout: 10_000 }, (err, stdout) => {
        if (err) return resolve(new Set());
        const langs = stdout.split('\n').map((s) => s.trim()).filter((s) => s && !s.includes(' ') && !s.endsWith(':'));
        resolve(new Set(langs.filter((l) => l !== 'osd')));
      });
    }),
  };
  installed = fresh;
  return fresh.langs;
}

let running = 0;
const waiting: Array<() => void> = [];

/** Run `fn` once fewer than `ocrConcurrency` tesseract processes are running in this process. */
async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  while (running >= Math.max(1, parseLimits().ocrConcurrency)) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Run tesseract with `args` on `image` (any format leptonica reads: PGM, PNG, JPEG, TIFF, WebP…). */
function run(image: Buffer, args: string[], timeoutMs: number, signal?: AbortSignal): Promise<string> {
  if (signal?.aborted) return Promise.reject(new Error('OCR aborted'));
  return withSlot(() => traced(`tesseract ${args.join(' ')}`, () => spawnTesseract(image, args, timeoutMs, signal)));
}

function spawnTesseract(image: Buffer, args: string[], timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, ['stdin', 'stdout', ...args], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    const finish = (e: Error | null, value?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (e) reject(e);
      else resolve(value!);
    };
    const onAbort = () => {
      child.kill('SIGKILL');
      finish(new Error('OCR aborted'));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new Error(`OCR took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => { if (err.length < 4000) err += d.toString(); });
    child.on('error', (e) => finish(e));
    child.on('close', (code) => {
      if (code === 0) finish(null, Buffer.concat(out).toString('utf8'));
      else finish(new Error(`tesseract exited with ${code}: ${err.trim().split('\n').slice(-2).join(' ')}`));
    });
    child.stdin.on('error', () => undefined); // EPIPE when tesseract rejects the image early
    child.stdin.end(image);
  });
}

/**
 * Mark each word with whether tesseract's text output has a space before it: TSV lines and the
 * non-empty lines of the text output correspond one to one; a line whose words do not spell its text
 * line (ignoring spaces) is left unmarked.
 */
function markSpaces(words: OcrWord[], text: string): void {
  const textLines = text.split('\n').map((l) => l.replace(/\f/g, '').trim()).filter(Boolean);
  const lines: OcrWord[][] = [];
  let key = '';
  for (const w of words) {
    const k = `${w.block}.${w.par}.${w.line}`;
    if (k !== key) lines.push([]);
    key = k;
    lines.at(-1)!.push(w);
  }
  if (lines.length !== textLines.length) return;
  lines.forEach((line, i) => {
    const t = textLines[i];
    if (line.map((w) => w.text).join('') !== t.replace(/\s+/g, '')) return;
    let cursor = 0;
    for (const w of line) {
      const at = t.indexOf(w.text, cursor);
      w.spaceBefore = at > cursor || cursor === 0;
      cursor = at + w.text.length;
    }
  });
}

/**
 * Words of an image with boxes, confidences and spacing (tesseract TSV and text output in one run).
 * @throws Error when tesseract is missing, fails, times out (default 60 s) or is aborted
 */
export async function recognizeWords(image: Buffer, opts: TesseractOptions): Promise<OcrWord[]> {
  const out = await run(image, ['-l', opts.langs, '--psm', String(opts.psm ?? 3), 'tsv', 'txt'], opts.timeoutMs ?? 60_000, opts.signal);
  const words: OcrWord[] = [];
  const rows = out.split('\n');
  let i = 0;
  for (; i < rows.length; i++) {
    const f = rows[i].split('\t');
    if (f.length < 12 || !/^\d+$/.test(f[0])) {
      if (f[0] === 'level') continue; // TSV header
      break;
    }
    if (f[0] !== '5') continue;
    const text = f.slice(11).join('\t').trim();
    const conf = Number(f[10]);
    if (!text || !(conf >= 0)) continue;
    words.push({
      text, block: Number(f[2]), par: Number(f[3]), line: Number(f[4]),
      left: Number(f[6]), top: Number(f[7]), width: Number(f[8]), height: Number(f[9]), conf,
    });
  }
  markSpaces(words, rows.slice(i).join('\n'));
  return words;
}

/** Script and orientation from tesseract's OSD (psm 0); null when OSD finds too little text. */
export async function detectScript(image: Buffer, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ script: string; rotate: number } | null> {
  let out: string;
  try {
    out = await run(image, ['--psm', '0'], opts.timeoutMs ?? 30_000, opts.signal);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return null; // "Too few characters" and similar: no script guess
  }
  const script = /Script:\s*(\S+)/.exec(out)?.[1];
  const rotate = Number(/Rotate:\s*(\d+)/.exec(out)?.[1] ?? 0);
  return script ? { script, rotate } : null;
}
