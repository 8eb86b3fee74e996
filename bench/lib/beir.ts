// Reading BEIR-format data sets (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) from ../shared/data/beir
// and the standard retrieval metrics the benchmarks report: nDCG@k (BEIR's definition, graded gain,
// log2 discount), recall@k and MRR@k. Shared by the benchmarks and the fitting scripts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Absolute directory of a BEIR set under ../shared/data/beir (e.g. 'scifact', 'xquad-de'). */
export function beirDir(name: string): string {
  return path.resolve(repoRoot, '../shared/data/beir', name);
}

export interface BeirDoc {
  _id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  _id: string;
  text: string;
}

/** query id -> (doc id -> graded relevance). */
export type Qrels = Map<string, Map<string, number>>;

export function readJsonl<T>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
}

/** Load a BEIR set; `queries` keeps only queries that have qrels in `split`, in file order. */
export function loadBeir(name: string, split = 'test'): { corpus: BeirDoc[]; queries: BeirQuery[]; qrels: Qrels } {
  const dir = beirDir(name);
  const qrels: Qrels = new Map();
  for (const line of fs.readFileSync(path.join(dir, 'qrels', `${split}.tsv`), 'utf8').split('\n').slice(1)) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  const corpus = readJsonl<BeirDoc>(path.join(dir, 'corpus.jsonl'));
  const queries = readJsonl<BeirQuery>(path.join(dir, 'queries.jsonl')).filter((q) => qrels.has(q._id));
  return { corpus, queries, qrels };
}

/** Ranked doc ids with duplicates removed (first occurrence kept): several hits may share a document. */
export function dedupe(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => (seen.has(id) ? false : (seen.add(id), true)));
}

/** nDCG@k with graded relevance: gain = rel, discount = log2(rank + 1) (BEIR / pytrec_eval). */
export function ndcgAt(k: number, ranked: string[], rel: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => { dcg += (rel.get(id) ?? 0) / Math.log2(i + 2); });
  const ideal = [...rel.values()].filter((r) => r > 0).sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Share of the relevant documents found in the top k. */
export function recallAt(k: number, ranked: string[], rel: Map<string, number>): number {
  const relevant = [...rel].filter(([, r]) => r > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

/** Reciprocal rank of the first relevant document within the top k (0 when none). */
export function mrrAt(k: number, ranked: string[], rel: Map<string, number>): number {
  const i = ranked.slice(0, k).findIndex((id) => (rel.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** Mean of per-query values. */
export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0;
}

/** Write a result object to bench/results/<name>.json; returns the path. */
export function writeResult(name: string, data: unknown): string {
  const dir = path.join(repoRoot, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  return file;
}
