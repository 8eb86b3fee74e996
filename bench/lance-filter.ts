// What the BTREE scalar index on `doc_id` (built by optimize, src/storage/lance-maintenance.ts) buys for the
// filtered reads of a search, measured on a namespace kept by `npm run bench:latency -- --keep`:
// the same queries with the index, then after dropping it, then the index is rebuilt (the kept namespace
// is left as it was). Queries: the one-read chunk-range fetch of expansion/widening (10 documents), one
// document's range, and vector / BM25 top-100 prefiltered to 20 documents (doc_ids) or excluding 5
// (exclude_doc_ids, i.e. documents being deleted). Columns as the service asks for them.
// Usage: npx tsx bench/lance-filter.ts DIR   (DIR from bench:latency's "kept …" line)
import fs from 'node:fs';
import path from 'node:path';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { STORED_COLUMNS } from '../src/storage/lance-arrow.ts';
import { annOf, withAnnParams } from '../src/storage/lance-ann.ts';
import { sqlString } from '../src/storage/lance-sql.ts';
import { beirDir, readJsonl } from './lib/beir.ts';
import { percentile } from './lib/quality.ts';
import { rng } from './lib/random.ts';
import { startBenchApp } from './lib/bench-app.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npx tsx bench/lance-filter.ts DIR');
const kept = JSON.parse(fs.readFileSync(path.join(dir, 'bench-latency-state.json'), 'utf8')) as { namespace: string; docs: number };
process.env.LANCEDB_LOG ??= 'error';
const lancedb = await import('@lancedb/lancedb');
await initAnalysis();
const queries = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text).slice(0, 100);
const app = await startBenchApp();
const vectors = await Promise.all(queries.map((q) => app.handle.services.embedder.embedQuery(q)));
await app.close();
const db = await lancedb.connect(path.join(dir, 'lance'));
const table = await db.openTable(kept.namespace);
const ann = annOf(await table.listIndices()); // the service's query parameters for this table's index
const rand = rng(7);
const docId = () => `syn-${String(Math.floor(rand() * kept.docs)).padStart(6, '0')}`;
const cols = [...STORED_COLUMNS];

const cases: Record<string, (i: number) => Promise<unknown>> = {
  'chunk ranges of 10 documents (one read)': () => table.query().where(Array.from({ length: 10 }, () => `(doc_id = ${sqlString(docId())} AND chunk_index >= 2 AND chunk_index <= 18)`).join(' OR ')).select(cols).toArrow(),
  'one document, chunks 0..15': () => table.query().where(`doc_id = ${sqlString(docId())} AND chunk_index >= 0 AND chunk_index <= 15`).select(cols).toArrow(),
  'vector top-100, doc_id IN (20 documents)': (i) => withAnnParams(table.vectorSearch(vectors[i % vectors.length]).distanceType('cosine'), ann, 100)
    .where(`doc_id IN (${Array.from({ length: 20 }, () => sqlString(docId())).join(', ')})`).select([...cols, 'vector', '_distance']).limit(100).toArrow(),
  'vector top-100, doc_id NOT IN (5 documents)': (i) => withAnnParams(table.vectorSearch(vectors[i % vectors.length]).distanceType('cosine'), ann, 100)
    .where(`doc_id NOT IN (${Array.from({ length: 5 }, () => sqlString(docId())).join(', ')})`).select([...cols, 'vector', '_distance']).limit(100).toArrow(),
  'BM25 top-100, doc_id IN (20 documents)': (i) => table.query().fullTextSearch(new lancedb.MatchQuery(analyseQuery(queries[i % queries.length], 'en').terms.join(' '), 'tokens', { operator: lancedb.Operator.Or }))
    .where(`doc_id IN (${Array.from({ length: 20 }, () => sqlString(docId())).join(', ')})`).select([...cols, 'vector', '_score']).limit(100).toArrow(),
};

async function measure(label: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, fn] of Object.entries(cases)) {
    for (let i = 0; i < 5; i++) await fn(i);
    const ms: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t = performance.now();
      await fn(i);
      ms.push(performance.now() - t);
    }
    out[name] = Number(percentile(ms, 50).toFixed(1));
  }
  console.log(label, out);
  return out;
}

const indexName = (await table.listIndices()).find((ix) => ix.columns.includes('doc_id'))?.name;
if (!indexName) throw new Error('the kept namespace has no doc_id index');
const withIndex = await measure('p50 ms with the doc_id BTREE index');
await table.dropIndex(indexName);
const without = await measure('p50 ms without it');
await table.createIndex('doc_id', { config: lancedb.Index.btree(), replace: true });
console.table(Object.keys(cases).map((k) => ({ query: k, 'with index p50 ms': withIndex[k], 'without p50 ms': without[k], speed_up: Number((without[k] / withIndex[k]).toFixed(1)) })));
table.close();
db.close();
