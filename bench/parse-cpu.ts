// Parse CPU per page and an identity check of the parse output, without the HTTP service: runs the parse
// child's path (parseDocument with the parsers loaded as a child loads them, then chunkDocument) on PDFs
// in this process, one after another, and prints CPU ms per page (process.cpuUsage, so a loaded machine
// inflates it less than wall time). With `--out FILE` it writes a digest of each document's output
// (blocks, title, pages, image assets, chunks); with `--compare FILE` it checks the output against one
// written before a change and exits 1 on any difference (a parser change that must not alter chunks).
//
//   npx tsx bench/parse-cpu.ts -- [--files a.pdf,b.pdf] [--repeat N] [--out F] [--compare F] [--dump DIR]
//
// Default files: every PDF under ../shared/data (qa/financebench*, docs/pdf). `--dump DIR` writes each
// document's full output as JSON, to diff when a digest differs. Run it under `node --cpu-prof` (via
// `node --import tsx --cpu-prof bench/parse-cpu.ts`) to see where the time goes.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadParsers, parseDocument, type ParsedDocument } from '../src/ingest/parse/index.ts';
import { chunkDocument } from '../src/ingest/chunking/chunker.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    files: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    out: { type: 'string' },
    compare: { type: 'string' },
    dump: { type: 'string' },
  },
});

const DATA = path.resolve(import.meta.dirname, '../../shared/data');

function allPdfs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...allPdfs(p));
    else if (e.name.toLowerCase().endsWith('.pdf')) out.push(p);
  }
  return out.sort();
}

const files = values.files ? values.files.split(',').map((f) => path.resolve(f)) : allPdfs(DATA);
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** The output that reaches the chunks and assets, in a stable JSON form (image bytes as their digest). */
function canonical(doc: ParsedDocument): unknown {
  const chunked = chunkDocument(doc);
  return {
    title: doc.title, pages: doc.pages, imageCount: doc.imageCount, blocks: doc.blocks,
    images: doc.images.map((a) => ({ ...a, data: sha(a.data) })),
    chunked,
  };
}

await loadParsers();
const digests: Record<string, string> = {};
let totalPages = 0;
let totalCpu = 0;
const repeat = Number(values.repeat);
for (const file of files) {
  const name = path.relative(DATA, file);
  const data = readFileSync(file);
  let result: string;
  let pages = 0;
  let cpuMs = 0;
  for (let r = 0; r < repeat; r++) {
    const c0 = process.cpuUsage();
    try {
      const doc = await parseDocument({ data: Buffer.from(data), filename: path.basename(file) });
      chunkDocument(doc);
      const c = process.cpuUsage(c0);
      cpuMs += (c.user + c.system) / 1000;
      pages = doc.pages;
      result = JSON.stringify(canonical(doc));
    } catch (err) {
      const c = process.cpuUsage(c0);
      cpuMs += (c.user + c.system) / 1000;
      result = JSON.stringify({ error: (err as { errorCode?: string }).errorCode ?? String(err), message: (err as Error).message });
    }
  }
  digests[name] = sha(result!);
  if (values.dump) {
    mkdirSync(values.dump, { recursive: true });
    writeFileSync(path.join(values.dump, name.replace(/[/\\]/g, '__') + '.json'), result!);
  }
  cpuMs /= repeat;
  if (pages) {
    totalPages += pages;
    totalCpu += cpuMs;
  }
  console.log(`${name.padEnd(60)} pages ${String(pages).padStart(4)}  cpu ${cpuMs.toFixed(0).padStart(6)} ms  ${pages ? (cpuMs / pages).toFixed(1) : '-'} ms/page  ${digests[name]}`);
}
console.log(`total: ${totalPages} pages, ${totalCpu.toFixed(0)} ms CPU, ${(totalCpu / Math.max(1, totalPages)).toFixed(2)} CPU ms/page (parse + chunk)`);
if (values.out) writeFileSync(values.out, JSON.stringify(digests, null, 1));
if (values.compare) {
  const before = JSON.parse(readFileSync(values.compare, 'utf8')) as Record<string, string>;
  const diff = Object.keys(digests).filter((k) => k in before && before[k] !== digests[k]);
  const missing = Object.keys(before).filter((k) => !(k in digests));
  console.log(`identity: ${Object.keys(digests).length - diff.length} of ${Object.keys(digests).length} identical${diff.length ? `; DIFFERENT: ${diff.join(', ')}` : ''}${missing.length ? `; not run: ${missing.length}` : ''}`);
  if (diff.length) process.exitCode = 1;
}
process.exit();
