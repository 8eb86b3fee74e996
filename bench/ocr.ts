// OCR benchmark: throughput and accuracy of OCR on every scanned document of
// ../shared/data/docs (pictures, and PDFs none of whose pages has a text layer; `--mixed` adds PDFs
// with only some such pages, whose time then includes their text pages), parsed exactly as the
// service does it: in the isolated parse children of a ParseRunner pool (src/ingest/isolation), as many
// documents at once as the pool has children (the worker's default concurrency, 2), so a document's
// pages may also spread over the cores. Reported: OCR'd pages, wall seconds, pages/s, and the CPU
// seconds the parse children and their tesseract processes spent (from /proc, so the number holds on
// a machine shared with other work; "pages/s on idle cores" = cores / CPU-s per page). Accuracy proxies
// per document: recall of hand-checked words (bench/lib/ocr-truth.ts) and token F1 against a reference
// run (bench/ocr-reference.json, written by `--write-reference` from the 300-dpi pipeline before issue
// 15). Table on stdout, JSON in bench/results/ocr.json. `--trace` instead parses the scans one by one in
// this process and lists every tesseract run and image preparation step with its CPU
// (bench/lib/ocr-tracer.ts; JSON in bench/results/ocr-trace.json).
// `--multipage [N]` reads one synthetic N-page scanned PDF (default 10; bench/lib/scan-pdf.ts) instead:
// its pages should keep both cores busy ("cores busy" = CPU s / wall s).
// Run: npm run bench:ocr [-- --pool 2] [-- --serial] [-- --mixed] [-- --only name] [-- --write-reference] [-- --trace] [-- --multipage 10]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { ParseRunner } from '../src/ingest/isolation/parse-runner.ts';
import { detectFormat } from '../src/ingest/parse/format.ts';
import { lacksTextLayer } from '../src/ingest/parse/pdf-ocr.ts';
import { ParseError } from '../src/ingest/parse/types.ts';
import { traceScans } from './lib/ocr-tracer.ts';
import { scanPdf } from './lib/scan-pdf.ts';
import { OCR_TRUTH, tokenF1, truthRecall } from './lib/ocr-truth.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = path.resolve(repoRoot, '../shared/data/docs');
const REFERENCE = path.join(repoRoot, 'bench', 'ocr-reference.json');
const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const POOL = Number(opt('--pool') ?? 2);
const SERIAL = argv.includes('--serial');
const ONLY = opt('--only');
const MIXED = argv.includes('--mixed');
const CLK_TCK = 100; // USER_HZ of /proc/<pid>/stat on Linux

interface Scan { rel: string; file: string; ocrPages: number; truth?: readonly string[] }
interface Row { file: string; ok: boolean; error?: string; ocrPages: number; ms: number; recall: number; refF1: number | null; text: string }

/** Every picture, and every PDF whose pages all lack a text layer (with --mixed: any such page). */
async function findScans(): Promise<Scan[]> {
  const out: Scan[] = [];
  const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(DOCS).sort()) {
    const rel = path.relative(DOCS, file);
    if (ONLY && !rel.includes(ONLY)) continue;
    const data = fs.readFileSync(file);
    const format = detectFormat(path.basename(file), data);
    if (format === 'image') out.push({ rel, file, ocrPages: 1 });
    if (format !== 'pdf') continue;
    try {
      const doc = await getDocument({ data: new Uint8Array(data), verbosity: 0 }).promise;
      let scanned = 0;
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        const text = (await page.getTextContent()).items.map((i) => (i as TextItem).str ?? '').join('');
        if (lacksTextLayer(text)) scanned++;
      }
      const pages = doc.numPages;
      await doc.destroy();
      if (scanned && (MIXED || scanned === pages)) out.push({ rel, file, ocrPages: scanned });
    } catch {
      // encrypted or broken PDFs are not scans
    }
  }
  return out;
}

/** Pictures of the data set with Latin text, cycled through for the synthetic multi-page scan. */
const MULTIPAGE_SOURCES = ['img/layout-parser-paper-with-table.jpg', 'img/qr_bill_example.jpg', 'img/table-multi-row-column-cells.png', 'img/tika_testOCR.png', 'img/english-and-korean.png'];

/** The synthetic N-page scan (pages 8.5 in wide), written to a temporary file. */
async function multipageScan(pages: number): Promise<Scan> {
  const sources = Array.from({ length: pages }, (_, i) => MULTIPAGE_SOURCES[i % MULTIPAGE_SOURCES.length]);
  const pdf = await scanPdf(sources.map((rel) => ({ data: fs.readFileSync(path.join(DOCS, rel)), widthIn: 8.5 })));
  const file = path.join(os.tmpdir(), `bench-ocr-multipage-${process.pid}.pdf`);
  fs.writeFileSync(file, pdf);
  return { rel: `synthetic ${pages}-page scan`, file, ocrPages: pages, truth: [...new Set(sources.flatMap((rel) => OCR_TRUTH[rel] ?? []))] };
}

/** CPU seconds (user + system, own + reaped children) of this process's child processes. */
function childrenCpuSeconds(): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== process.pid) continue; // f[1] = ppid
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // utime stime cutime cstime
    } catch {
      // the process went away meanwhile
    }
  }
  return ticks / CLK_TCK;
}

/** Tesseract processes running under this process's children right now (parse child -> tesseract). */
function runningTesseracts(): number {
  const parents = new Map<string, string>();
  const names = new Map<string, string>();
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      names.set(pid, stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      parents.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      // gone meanwhile
    }
  }
  const mine = (pid: string) => parents.get(parents.get(pid) ?? '') === String(process.pid);
  return [...names].filter(([pid, name]) => name === 'tesseract' && mine(pid)).length;
}

async function main(): Promise<void> {
  const multipage = argv.includes('--multipage') ? await multipageScan(Number(opt('--multipage')) || 10) : null;
  const scans = multipage ? [multipage] : await findScans();
  if (argv.includes('--trace')) {
    const traces = await traceScans(scans);
    writeResult('ocr-trace.json', { date: new Date().toISOString(), node: process.version, documents: traces });
    return;
  }
  const reference: Record<string, string> = fs.existsSync(REFERENCE) ? JSON.parse(fs.readFileSync(REFERENCE, 'utf8')).texts : {};
  const runner = new ParseRunner({ size: POOL, timeoutMs: 600_000, maxMemoryMb: 4096 });
  const warm = { data: Buffer.from('warm up the parser child process'), filename: 'warm.txt' };
  await Promise.all(Array.from({ length: POOL }, () => runner.parse(warm)));
  const load = os.loadavg()[0];
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  const running: number[] = [];
  const sampler = setInterval(() => running.push(runningTesseracts()), 50);
  const rows: Row[] = [];
  const queue = [...scans];
  const worker = async () => {
    for (let s = queue.shift(); s; s = queue.shift()) {
      const start = performance.now();
      let row: Row;
      try {
        const doc = await runner.parse({ data: fs.readFileSync(s.file), filename: path.basename(s.file) });
        const text = doc.blocks.filter((b) => b.kind !== 'image').map((b) => b.text).join('\n');
        const ref = reference[s.rel];
        row = { file: s.rel, ok: true, ocrPages: s.ocrPages, ms: performance.now() - start, recall: truthRecall(text, s.truth ?? OCR_TRUTH[s.rel] ?? []), refF1: ref === undefined ? null : tokenF1(text, ref), text };
      } catch (err) {
        const error = err instanceof ParseError ? `${err.jobCode} ${err.errorCode}` : String(err);
        row = { file: s.rel, ok: false, error, ocrPages: s.ocrPages, ms: performance.now() - start, recall: 0, refF1: reference[s.rel] === undefined ? null : tokenF1('', reference[s.rel]), text: '' };
      }
      rows.push(row);
      process.stderr.write(`${row.file}: ${row.ok ? '' : row.error + ' '}${row.ms.toFixed(0)} ms, words ${(row.recall * 100).toFixed(0)}%\n`);
    }
  };
  await Promise.all(Array.from({ length: SERIAL ? 1 : POOL }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = childrenCpuSeconds() - cpu0;
  clearInterval(sampler);
  await runner.close();
  if (multipage) fs.rmSync(multipage.file, { force: true });
  rows.sort((a, b) => a.file.localeCompare(b.file));

  const pages = rows.reduce((s, r) => s + r.ocrPages, 0);
  const cores = os.availableParallelism();
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  const withRef = rows.filter((r) => r.refF1 !== null);
  const summary = {
    documents: rows.length, failed: rows.filter((r) => !r.ok).length, pages, seconds: +seconds.toFixed(2),
    pagesPerSecond: +(pages / seconds).toFixed(2), cpuSeconds: +cpu.toFixed(2), cpuSecondsPerPage: +(cpu / pages).toFixed(2),
    pagesPerSecondIdleCores: +((cores * pages) / cpu).toFixed(2), coresBusy: +(cpu / seconds).toFixed(2), cores,
    tesseractsRunning: { mean: +(running.reduce((a, b) => a + b, 0) / Math.max(1, running.length)).toFixed(2), max: Math.max(0, ...running), atLeastTwo: +(running.filter((n) => n >= 2).length / Math.max(1, running.length)).toFixed(2) }, loadAverage1m: +load.toFixed(2), pool: POOL, serial: SERIAL,
    wordRecall: +mean(rows.map((r) => r.recall)).toFixed(3), referenceF1: withRef.length ? +mean(withRef.map((r) => r.refF1!)).toFixed(3) : null,
  };
  console.log('| document | OCR pages | ms | hand-checked words found | token F1 vs 300-dpi reference |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.file}${r.ok ? '' : ` (${r.error})`} | ${r.ocrPages} | ${r.ms.toFixed(0)} | ${(r.recall * 100).toFixed(0)}% | ${r.refF1 === null ? '—' : r.refF1.toFixed(2)} |`);
  }
  console.log(`\n${summary.documents} documents (${summary.failed} failed), ${pages} OCR'd pages in ${summary.seconds} s = ${summary.pagesPerSecond} pages/s `
    + `(pool ${POOL}${SERIAL ? ', one document at a time' : ''}, load average ${summary.loadAverage1m} on ${cores} cores)`);
  console.log(`CPU ${summary.cpuSeconds} s = ${summary.cpuSecondsPerPage} s/page -> ${summary.pagesPerSecondIdleCores} pages/s on ${cores} idle cores; cores busy ${summary.coresBusy}`);
  const tr = summary.tesseractsRunning;
  console.log(`tesseract processes running (sampled every 50 ms): mean ${tr.mean}, max ${tr.max}, 2 or more ${(tr.atLeastTwo * 100).toFixed(0)}% of the time`);
  console.log(`accuracy: hand-checked words found ${(summary.wordRecall * 100).toFixed(1)}%, token F1 vs reference ${summary.referenceF1 ?? '—'}`);

  if (argv.includes('--write-reference')) {
    const texts = Object.fromEntries(rows.filter((r) => r.ok).map((r) => [r.file, r.text]));
    fs.writeFileSync(REFERENCE, JSON.stringify({ note: 'OCR text of the former 300-dpi pipeline (tesseract, OSD + language choice); written by npm run bench:ocr -- --write-reference', date: new Date().toISOString(), texts }, null, 2) + '\n');
    console.log(`written ${path.relative(repoRoot, REFERENCE)}`);
  }
  writeResult('ocr.json', { date: new Date().toISOString(), node: process.version, summary, documents: rows.map(({ text: _t, ...r }) => r) });
}

function writeResult(name: string, value: unknown): void {
  const out = path.join(repoRoot, 'bench', 'results', name);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(value, null, 2) + '\n');
  console.log(`written ${path.relative(repoRoot, out)}`);
}

await main();
