// Vector-only retrieval quality of the builtin embedder on BEIR SciFact (test split): brute-force cosine
// of each query against every corpus document (title + text), nDCG@10 and recall@100 from the qrels.
// No BM25, no reranking: this isolates the embedder. Usage:
//   npx tsx bench/embedder-scifact.ts [dataDir]   (dataDir holds the int8 cache; default: a temp dir)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBuiltinEmbedder } from '../src/models/builtin-embedder.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(repoRoot, '../shared/data/beir/scifact');

function readJsonl<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** nDCG@k with graded relevance (BEIR's definition: gain = rel, discount = log2(rank + 1)). */
function ndcgAt(k: number, ranked: string[], rel: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += (rel.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

async function main(): Promise<void> {
  const dataDir = process.argv[2] ?? path.join(os.tmpdir(), 'docsearch-bench-data');
  let t = performance.now();
  const embedder = await createBuiltinEmbedder({ dataDir });
  console.log(`embedder open: ${(performance.now() - t).toFixed(0)} ms`, embedder.loadInfo);

  const corpus = readJsonl<{ _id: string; title: string; text: string }>(path.join(dir, 'corpus.jsonl'));
  const queries = new Map(readJsonl<{ _id: string; text: string }>(path.join(dir, 'queries.jsonl')).map((q) => [q._id, q.text]));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels/test.tsv'), 'utf8').split('\n').slice(1)) {
    const [qid, did, score] = line.split('\t');
    if (!qid || !did) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(did, Number(score));
  }

  t = performance.now();
  const docVecs = await embedder.embedDocuments(corpus.map((d) => `${d.title}\n${d.text}`));
  const embedMs = performance.now() - t;
  console.log(`embedded ${corpus.length} docs in ${embedMs.toFixed(0)} ms (${((embedMs / corpus.length) * 1000).toFixed(0)} µs/doc)`);

  const dim = embedder.signature.dimension;
  const matrix = new Float32Array(corpus.length * dim);
  docVecs.forEach((v, i) => matrix.set(v, i * dim));

  let ndcg = 0;
  let recall100 = 0;
  t = performance.now();
  for (const [qid, rel] of qrels) {
    const q = await embedder.embedQuery(queries.get(qid) ?? '');
    const scores = new Float32Array(corpus.length);
    for (let i = 0; i < corpus.length; i++) {
      let s = 0;
      const base = i * dim;
      for (let k = 0; k < dim; k++) s += q[k] * matrix[base + k];
      scores[i] = s;
    }
    const order = Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]);
    const ranked = order.slice(0, 100).map((i) => corpus[i]._id);
    ndcg += ndcgAt(10, ranked, rel);
    const relevant = [...rel.keys()].filter((id) => (rel.get(id) ?? 0) > 0);
    recall100 += relevant.filter((id) => ranked.includes(id)).length / Math.max(1, relevant.length);
  }
  const n = qrels.size;
  console.log(`queries: ${n}, search ${(performance.now() - t).toFixed(0)} ms total`);
  console.log(`SciFact test, vector only (${embedder.signature.model}): nDCG@10 = ${(ndcg / n).toFixed(4)}, recall@100 = ${(recall100 / n).toFixed(4)}`);
}

await main();
