// What each selected column costs the two retrieval calls (docs/decisions/2026-11-24-reads-without-text.md): on a
// namespace kept by bench:latency (--reuse DIR), vector top-100 ∥ BM25 top-100 with the service's ANN
// parameters, queried directly, once per column set below; p50 wall time and the process's CPU time per
// search (LanceDB's threads included, process.cpuUsage). Column sets run one after the other, each over the
// same SciFact queries, so compare rows of one run only. A table created with the packed column
// (storage/lance-pack.ts) gets its own sets.
// Prints a table; writes bench/results/column-cost.json.
// Usage: npx tsx bench/column-cost.ts --reuse DIR [--queries N]
import fs from 'node:fs';
import path from 'node:path';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { PACKED_SEARCH_COLUMNS, SEARCH_COLUMNS } from '../src/storage/lance-arrow.ts';
import { hasPackColumn, PACK_COLUMN } from '../src/storage/lance-pack.ts';
import { LAYOUT_COLUMN, TERMS_COLUMN } from '../src/storage/lance-layout.ts';
import { loadBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { beirDir, readJsonl, writeResult } from './lib/beir.ts';
import { BASELINE_COLUMNS, openBaselineTable, vectorAndBm25 } from './lib/engine-baseline.ts';
import { percentile } from './lib/quality.ts';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined; };
const REUSE = argOf('--reuse');
const QUERIES = Number(argOf('--queries') ?? 300);
if (!REUSE) throw new Error('usage: npx tsx bench/column-cost.ts --reuse DIR [--queries N]');

/**
 * The column sets compared on a table of separate columns (created before the packed column): none, the
 * service's standard-tier read, it without each costly column, the baseline's.
 */
const SERVICE = [...SEARCH_COLUMNS, TERMS_COLUMN, 'vector'];
const without = (...names: string[]) => SERVICE.filter((c) => !names.includes(c));
const SEPARATE_SETS: Record<string, readonly string[]> = {
  'none (row ids and scores)': [],
  'service (standard tier)': SERVICE,
  'service without term hashes': without(TERMS_COLUMN),
  'service without vector': without('vector'),
  'service without layout': without(LAYOUT_COLUMN),
  'service without chunkset_index, token_count': without('chunkset_index', 'token_count'),
  'service + id, page_start, page_end (the former search read)': [...SERVICE, 'id', 'page_start', 'page_end'],
  'baseline (chunk rows with text, vector)': BASELINE_COLUMNS,
};

/** The sets compared on a packed table (lance-pack.ts): its rows' separate layout and term cells are null, so those are not timed. */
const PACKED_SETS: Record<string, readonly string[]> = {
  'none (row ids and scores)': [],
  'doc_id only': ['doc_id'],
  'service (standard tier): doc_id, search_pack': PACKED_SEARCH_COLUMNS,
  'search_pack only': [PACK_COLUMN],
  'baseline (chunk rows with text, vector)': BASELINE_COLUMNS,
};

async function main(): Promise<void> {
  const state = JSON.parse(fs.readFileSync(path.join(REUSE!, 'bench-latency-state.json'), 'utf8')) as { namespace: string };
  await initAnalysis();
  const t = await openBaselineTable(REUSE!, state.namespace);
  const packed = hasPackColumn(await t.table.schema());
  const SETS = packed ? PACKED_SETS : SEPARATE_SETS;
  const embedder = await loadBuiltinEmbedder(REUSE!);
  const queries = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text).slice(0, QUERIES);
  const vectors = queries.map((q) => embedder.embedSync(q));
  const terms = queries.map((q) => analyseQuery(q, 'en').terms);
  const rows: Array<{ columns: string; p50_ms: number; cpu_ms: number }> = [];
  try {
    for (let i = 0; i < 20; i++) await vectorAndBm25(t, vectors[i], terms[i], { columns: packed ? PACKED_SEARCH_COLUMNS : SERVICE, rowIds: true }); // warm-up
    for (const [name, columns] of Object.entries(SETS)) {
      const ms: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < queries.length; i++) {
        const start = performance.now();
        await vectorAndBm25(t, vectors[i], terms[i], { columns, rowIds: true });
        ms.push(performance.now() - start);
      }
      const cpu = process.cpuUsage(cpu0);
      rows.push({ columns: name, p50_ms: Number(percentile(ms, 50).toFixed(2)), cpu_ms: Number(((cpu.user + cpu.system) / 1000 / queries.length).toFixed(2)) });
    }
  } finally {
    t.close();
  }
  console.table(rows);
  console.log(`results: ${writeResult('column-cost', { rows, queries: queries.length, dir: REUSE })}`);
}

await main();
