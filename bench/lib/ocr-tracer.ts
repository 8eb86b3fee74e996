// Where OCR's CPU goes (`npm run bench:ocr -- --trace`): every scan is parsed in this process,
// one document and one tesseract run at a time, with a tracer (src/ingest/parse/ocr-trace.ts) that
// records each tesseract run and each image preparation step: wall ms, CPU ms of this process (sharp,
// canvas rendering, pixel loops) and of its reaped children (tesseract; /proc/self/stat cutime+cstime,
// exact because nothing else runs meanwhile). What no step covers (pdfjs parsing and image decoding,
// layout) is "other". Prints one table per document and a summary per kind of step.
import fs from 'node:fs';
import path from 'node:path';
import { setParseLimits } from '../../src/ingest/isolation/limits.ts';
import { loadParsers, parseDocument } from '../../src/ingest/parse/index.ts';
import { setOcrTracer } from '../../src/ingest/parse/ocr-trace.ts';

const CLK_TCK = 100; // USER_HZ of /proc/<pid>/stat on Linux

export interface TraceStep { label: string; wallMs: number; selfCpuMs: number; childCpuMs: number }
export interface DocumentTrace { file: string; pages: number; wallMs: number; cpuMs: number; steps: TraceStep[] }

/** CPU ms of this process (all threads) and of its reaped children. */
function cpuNow(): { self: number; children: number } {
  const u = process.cpuUsage();
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { self: (u.user + u.system) / 1000, children: ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK }; // cutime cstime
}

/** The kind of a step for the summary: tesseract runs by mode, prep steps by name. */
function kindOf(label: string): string {
  if (label.startsWith('prep render')) return 'prep render (pdfjs + canvas)';
  if (!label.startsWith('tesseract')) return label;
  if (label.includes('--psm 0')) return 'tesseract OSD (psm 0)';
  if (label.includes('--psm 11')) return 'tesseract sparse (psm 11)';
  return label.includes('-l eng ') ? 'tesseract eng (psm 3)' : 'tesseract other language (psm 3)';
}

/**
 * Parse each scan serially with the tracer on; returns the per-document traces (also printed).
 * @param scans files with their count of OCR'd pages
 */
export async function traceScans(scans: Array<{ rel: string; file: string; ocrPages: number }>): Promise<DocumentTrace[]> {
  setParseLimits({ ocrConcurrency: 1 });
  await loadParsers();
  let steps: TraceStep[] = [];
  setOcrTracer(async (label, fn) => {
    const c0 = cpuNow();
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      const c1 = cpuNow();
      steps.push({ label, wallMs: performance.now() - t0, selfCpuMs: c1.self - c0.self, childCpuMs: c1.children - c0.children });
    }
  });
  const out: DocumentTrace[] = [];
  for (const s of scans) {
    steps = [];
    const c0 = cpuNow();
    const t0 = performance.now();
    try {
      await parseDocument({ data: fs.readFileSync(s.file), filename: path.basename(s.file) });
    } catch (err) {
      steps.push({ label: `failed: ${(err as Error).message}`, wallMs: 0, selfCpuMs: 0, childCpuMs: 0 });
    }
    const c1 = cpuNow();
    out.push({ file: s.rel, pages: s.ocrPages, wallMs: performance.now() - t0, cpuMs: c1.self - c0.self + c1.children - c0.children, steps });
  }
  setOcrTracer(null);
  const ms = (x: number) => x.toFixed(0);
  for (const d of out) {
    const runs = d.steps.filter((s) => s.label.startsWith('tesseract')).length;
    console.log(`\n${d.file}: ${d.pages} page(s), ${runs} tesseract run(s), CPU ${ms(d.cpuMs)} ms, wall ${ms(d.wallMs)} ms`);
    for (const s of d.steps) console.log(`  ${s.label.padEnd(52)} wall ${ms(s.wallMs).padStart(5)}  cpu ${ms(s.selfCpuMs + s.childCpuMs).padStart(5)} (node ${ms(s.selfCpuMs)}, child ${ms(s.childCpuMs)})`);
  }
  const pages = out.reduce((n, d) => n + d.pages, 0);
  const byKind = new Map<string, { n: number; cpu: number }>();
  for (const s of out.flatMap((d) => d.steps)) {
    const k = byKind.get(kindOf(s.label)) ?? { n: 0, cpu: 0 };
    k.n++;
    k.cpu += s.selfCpuMs + s.childCpuMs;
    byKind.set(kindOf(s.label), k);
  }
  const total = out.reduce((n, d) => n + d.cpuMs, 0);
  const covered = [...byKind.values()].reduce((n, k) => n + k.cpu, 0);
  console.log(`\n| step (${pages} pages) | runs | runs/page | CPU s | CPU s/page | share |\n|---|---|---|---|---|---|`);
  const row = (k: string, n: number | string, cpu: number) =>
    console.log(`| ${k} | ${n} | ${typeof n === 'number' ? (n / pages).toFixed(2) : ''} | ${(cpu / 1000).toFixed(2)} | ${(cpu / 1000 / pages).toFixed(3)} | ${((100 * cpu) / total).toFixed(0)}% |`);
  for (const [k, v] of [...byKind].sort((a, b) => b[1].cpu - a[1].cpu)) row(k, v.n, v.cpu);
  row('other (pdfjs, layout, sharp metadata)', '', total - covered);
  row('total', '', total);
  return out;
}
