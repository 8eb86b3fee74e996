// Ingest benchmark: parse + chunk throughput and peak memory per format group, over every
// file in ../shared/data/docs/<format>/ and the FinanceBench 10-K/10-Q/8-K PDFs in
// ../shared/data/qa/financebench/pdfs. Each document is parsed exactly as the service does it — in the
// isolated parse child (src/ingest/isolation/parse-runner.ts: OCR, tables, figures included) — and then
// chunked in this process. Embedding and index writes are left out (they depend on the embedder and are
// measured by the search/index benchmarks). Reported per group: documents (ok/failed), pages, seconds,
// pages/s, MB/s, median and max per-document time, and the parse child's peak resident memory (its
// idle baseline is printed once). Table on stdout, JSON in bench/results/ingest.json.
// Run: npm run bench:ingest [-- --group pdf] [-- --repeat 1]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from '../src/ingest/chunking/chunker.ts';
import { ParseRunner } from '../src/ingest/isolation/parse-runner.ts';
import { ParseError } from '../src/ingest/parse/types.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = path.resolve(repoRoot, '../shared/data/docs');
const FINANCE = path.resolve(repoRoot, '../shared/data/qa/financebench/pdfs');
const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const ONLY = opt('--group');

interface DocResult { file: string; ok: boolean; error?: string; pages: number; bytes: number; ms: number; peakRssMb: number; chunks: number; tables: number; images: number }
interface GroupResult { group: string; docs: number; failed: number; pages: number; mb: number; seconds: number; pagesPerSecond: number; mbPerSecond: number; medianDocMs: number; maxDocMs: number; peakRssMb: number; tables: number; images: number }

function groups(): Array<[string, string[]]> {
  const out: Array<[string, string[]]> = [];
  for (const dir of fs.readdirSync(DOCS).sort()) {
    const abs = path.join(DOCS, dir);
    if (!fs.statSync(abs).isDirectory()) continue;
    out.push([dir, fs.readdirSync(abs).sort().map((f) => path.join(abs, f))]);
  }
  if (fs.existsSync(FINANCE)) out.push(['financebench-pdf', fs.readdirSync(FINANCE).sort().map((f) => path.join(FINANCE, f))]);
  return out.filter(([g]) => !ONLY || g === ONLY);
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] ?? 0; };

async function main(): Promise<void> {
  const runner = new ParseRunner({ size: 1, timeoutMs: 600_000, maxMemoryMb: 4096 });
  // Warm the child (start-up and module loading are not part of any document's time).
  const { stats: warm } = await runner.parseWithStats({ data: Buffer.from('warm up the parser child process'), filename: 'warm.txt' });
  const baselineMb = warm.peakRssBytes / 1048576;
  const results: Record<string, DocResult[]> = {};
  const summary: GroupResult[] = [];
  for (const [group, files] of groups()) {
    const rows: DocResult[] = [];
    for (const file of files) {
      const data = fs.readFileSync(file);
      const t0 = performance.now();
      try {
        const { doc, stats } = await runner.parseWithStats({ data, filename: path.basename(file) });
        const chunked = chunkDocument(doc);
        rows.push({ file: path.basename(file), ok: true, pages: doc.pages, bytes: data.length, ms: performance.now() - t0, peakRssMb: stats.peakRssBytes / 1048576, chunks: chunked.chunks.length, tables: chunked.tableCount, images: chunked.imageCount });
      } catch (err) {
        const code = err instanceof ParseError ? `${err.jobCode} ${err.errorCode}` : String(err);
        rows.push({ file: path.basename(file), ok: false, error: code, pages: 0, bytes: data.length, ms: performance.now() - t0, peakRssMb: 0, chunks: 0, tables: 0, images: 0 });
      }
      const r = rows.at(-1)!;
      process.stderr.write(`${group}/${r.file}: ${r.ok ? `${r.pages} p, ${r.ms.toFixed(0)} ms, ${r.tables} tables, ${r.images} images` : r.error}\n`);
    }
    const ok = rows.filter((r) => r.ok);
    const seconds = ok.reduce((s, r) => s + r.ms, 0) / 1000;
    const pages = ok.reduce((s, r) => s + r.pages, 0);
    const mb = ok.reduce((s, r) => s + r.bytes, 0) / 1048576;
    summary.push({
      group, docs: ok.length, failed: rows.length - ok.length, pages, mb: +mb.toFixed(2), seconds: +seconds.toFixed(2),
      pagesPerSecond: seconds ? +(pages / seconds).toFixed(1) : 0, mbPerSecond: seconds ? +(mb / seconds).toFixed(2) : 0,
      medianDocMs: Math.round(median(ok.map((r) => r.ms))), maxDocMs: Math.round(Math.max(0, ...ok.map((r) => r.ms))),
      peakRssMb: Math.round(Math.max(0, ...ok.map((r) => r.peakRssMb))),
      tables: ok.reduce((s, r) => s + r.tables, 0), images: ok.reduce((s, r) => s + r.images, 0),
    });
    results[group] = rows;
  }
  await runner.close();
  console.log(`parse child idle RSS: ${baselineMb.toFixed(0)} MB (peaks below include it)`);
  console.log('| group | docs | failed | pages | MB | s | pages/s | MB/s | median ms/doc | max ms/doc | peak RSS MB | tables | images |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const g of summary) {
    console.log(`| ${g.group} | ${g.docs} | ${g.failed} | ${g.pages} | ${g.mb} | ${g.seconds} | ${g.pagesPerSecond} | ${g.mbPerSecond} | ${g.medianDocMs} | ${g.maxDocMs} | ${g.peakRssMb} | ${g.tables} | ${g.images} |`);
  }
  const out = path.join(repoRoot, 'bench', 'results', 'ingest.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, childIdleRssMb: Math.round(baselineMb), groups: summary, documents: results }, null, 2) + '\n');
  console.log(`written ${path.relative(repoRoot, out)}`);
}

await main();
