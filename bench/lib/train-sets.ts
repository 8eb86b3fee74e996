// Training data for the relevance model (bench/fit-relevance.ts) and the builtin reranker
// (bench/fit-reranker.ts): candidate hits exactly as the service scores them (SearchService.rank: analysis, retrieval, fusion, anchor, coverage, grouping), from
// TRAINING splits of several kinds of data, in namespaces of several sizes, each question asked plain and
// wrapped in an agent-style instruction (trainWrap: templates of its own, distinct from the evaluation's
// verboseForm, so the evaluation's wording is never fitted):
//   scifact     SciFact TRAIN claims (short claims → abstracts): the full 5 183-abstract namespace, and
//               namespaces of 10 claims' relevant abstracts plus 10 or 100 random others
//   xquad-<l>   XQuAD questions of EVEN-numbered articles (the evaluation asks the odd ones), 12
//               languages: namespaces of 1, 10 and 240 paragraphs, and "long documents" (10 articles per
//               namespace, each article one multi-paragraph document; the relevant hit is the chunk
//               region holding the answer)
import type { Ranked } from '../../src/search/search-service.ts';
import type { EmbeddingSignature } from '../../src/storage/namespace-index.ts';
import fs from 'node:fs';
import path from 'node:path';
import { createBenchProject, startBenchApp, type BenchApp } from './bench-app.ts';
import { ingestCorpus } from './corpus.ts';
import { loadBeir, type BeirDoc } from './beir.ts';
import { rng } from './random.ts';
import { thin, xquadAnswers, xquadArticle } from './answers-sets.ts';
import { normaliseText } from './answers-common.ts';
import { relevanceFeatures, regionInput, type RelevanceFeatures } from '../../src/search/stages/score.ts';

/** One candidate hit with every feature, its label and the group it belongs to. */
export interface TrainRow {
  set: string;
  query: string;
  f: RelevanceFeatures;
  y: 0 | 1;
  /** Query-level statistics (QueryStats) for fitting studies: chunks N, query words, matchable words. */
  q?: { n: number; terms: number; matchable: number };
}

/** Instruction wrappers for TRAINING questions (never used by the evaluation). */
export function trainWrap(q: string, i: number): string {
  const t = [
    `Based on the documents in the knowledge base, ${q}`,
    `I need this for a report. ${q} Please be concise and quote the source.`,
    `Context: you are an expert assistant helping a customer. Question: ${q} Respond in one paragraph.`,
    `Find the relevant passage and answer: ${q}`,
  ];
  return t[i % t.length];
}

const norm = normaliseText;

interface Q { id: string; text: string; judge: (docId: string, content: string) => boolean }

/**
 * One training query as the service ranked it (SearchService.rank with text, stats non-null): `key` is
 * "<question id>|plain" or "…|wrapped"; `judge(docId, content)` labels a hit region relevant.
 */
export interface TrainQuery {
  set: string;
  key: string;
  text: string;
  ranked: Ranked;
  judge: (docId: string, content: string) => boolean;
}

/** What a fit makes of each training query (relevance rows, reranker rows). */
export type TrainVisitor = (q: TrainQuery) => Promise<void>;

/** The relevance model's rows: every candidate region with its standard features and label. */
export function relevanceRows(out: TrainRow[]): TrainVisitor {
  return async ({ set, key, ranked: r, judge }) => {
    const stats = r.stats!;
    for (const reg of r.regions) {
      const content = reg.chunks.map((c) => c.content).join('\n');
      out.push({ set, query: key, f: relevanceFeatures(regionInput(reg), reg.stats ?? stats), y: judge(reg.docId, content) ? 1 : 0, q: { n: stats.chunkCount, terms: stats.termCount, matchable: stats.matchable } });
    }
  };
}

let projects = 0;

async function collect(app: BenchApp, set: string, docs: BeirDoc[], qs: Q[], visit: TrainVisitor): Promise<void> {
  const p = await createBenchProject(app, `${set.replace(/[^a-z0-9-]/gi, '-').slice(0, 50)}-${projects++}`);
  const s = app.handle.services;
  await ingestCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: p.projectId, namespace: p.namespace }, docs);
  for (const [i, q] of qs.entries()) {
    for (const text of [q.text, trainWrap(q.text, i)]) {
      const ranked = await s.search.rank({ projectId: p.projectId, namespace: p.namespace }, { query: text }, true);
      if (!ranked.stats) continue;
      await visit({ set, key: `${q.id}|${text === q.text ? 'plain' : 'wrapped'}`, text, ranked, judge: q.judge });
    }
  }
  await s.index.dropNamespace(p.namespace).catch(() => undefined);
}

/** SciFact TRAIN candidates (see file header). */
export async function scifactTrainRows(app: BenchApp, visit: TrainVisitor, perSet: number): Promise<void> {
  const { corpus, queries, qrels } = loadBeir('scifact', 'train');
  const byId = new Map(corpus.map((d) => [d._id, d]));
  const mk = (qs: typeof queries): Q[] => qs.map((q) => ({ id: q._id, text: q.text, judge: (d) => qrels.get(q._id)!.has(d) }));
  await collect(app, 'scifact n=5183', corpus, mk(queries), visit); // every train claim: the ranking the tier is judged by
  const rand = rng(11);
  for (const others of [10, 100]) {
    const qs = thin(queries.slice(1), perSet);
    for (let g = 0; g < qs.length; g += 10) {
      const group = qs.slice(g, g + 10);
      const rel = new Set(group.flatMap((q) => [...qrels.get(q._id)!.keys()]));
      const docs = [...rel].map((id) => byId.get(id)!).filter(Boolean);
      while (docs.length < rel.size + others) {
        const d = corpus[Math.floor(rand() * corpus.length)];
        if (!rel.has(d._id) && !docs.includes(d)) docs.push(d);
      }
      await collect(app, `scifact n=rel+${others}`, docs, mk(group), visit);
    }
  }
}

/** XQuAD TRAIN-half candidates for one language (see file header). */
export async function xquadTrainRows(app: BenchApp, lang: string, visit: TrainVisitor, perSet: number): Promise<void> {
  const { corpus, queries, qrels } = loadBeir(`xquad-${lang}`);
  const answers = new Map([...xquadAnswers(lang)].map(([id, xs]) => [id, xs.map(norm)]));
  const docOf = (qid: string) => [...qrels.get(qid)!.keys()][0];
  const train = queries.filter((q) => xquadArticle(docOf(q._id)) % 2 === 0);
  const para = (q: typeof train[number]): Q => {
    const gold = answers.get(q._id) ?? [];
    return { id: q._id, text: q.text, judge: (d, c) => d === docOf(q._id) && gold.some((a) => norm(c).includes(a)) };
  };
  await collect(app, `xquad-${lang} n=240`, corpus, thin(train, perSet).map(para), visit);
  const tenGroups: Array<[BeirDoc[], Q[]]> = [];
  for (let i = 0; i < corpus.length; i += 10) {
    const docs = corpus.slice(i, i + 10);
    const ids = new Set(docs.map((d) => d._id));
    tenGroups.push([docs, train.filter((q) => ids.has(docOf(q._id))).map(para)]);
  }
  const per10 = Math.max(1, Math.ceil(perSet / tenGroups.length));
  for (const [docs, qs] of tenGroups) if (qs.length) await collect(app, `xquad-${lang} n=10`, docs, thin(qs, per10), visit);
  const ones = thin(train, Math.ceil(perSet / 3));
  for (const q of ones) await collect(app, `xquad-${lang} n=1`, corpus.filter((d) => d._id === docOf(q._id)), [para(q)], visit);
  // Long documents: each article one document (its paragraphs in order), 10 articles per namespace.
  const articles = new Map<number, BeirDoc[]>();
  for (const d of corpus) articles.set(xquadArticle(d._id), [...(articles.get(xquadArticle(d._id)) ?? []), d]);
  const artDocs = [...articles].map(([a, ps]) => ({ _id: `art${a}`, title: ps[0].title.replace(/_/g, ' '), text: ps.map((p) => p.text).join('\n\n') }));
  for (let g = 0; g < artDocs.length; g += 10) {
    const docs = artDocs.slice(g, g + 10);
    const ids = new Set(docs.map((d) => d._id));
    const qs = thin(train.filter((q) => ids.has(`art${xquadArticle(docOf(q._id))}`)), Math.ceil(perSet / 5)).map((q) => {
      const gold = answers.get(q._id) ?? [];
      return { id: q._id, text: q.text, judge: (d: string, c: string) => d === `art${xquadArticle(docOf(q._id))}` && gold.some((a) => norm(c).includes(a)) };
    });
    if (qs.length) await collect(app, `xquad-${lang} long`, docs, qs, visit);
  }
}

/**
 * Every training query of every kind into `visit`, in a fresh bench app (reranker off: the fits read the
 * standard ranking; the embedder as DOCSEARCH_EMBEDDER* in the environment say, builtin by default), then
 * its rows written as JSON to `cache`.
 * @param rows  the array the visitor appends to (its length is reported on stderr per set, and it is cached)
 * @param perSet questions per XQuAD set and language; SciFact's small namespaces get twice as many
 * @param langs XQuAD languages
 * @returns the rows and the signature of the embedder they were collected with
 */
export async function collectTrainingRows<R>(rows: R[], visit: TrainVisitor, perSet: number, langs: string[], cache: string): Promise<{ rows: R[]; embedder: EmbeddingSignature }> {
  // The embedder settings of the environment (DOCSEARCH_EMBEDDER*), so a model can be fitted for another embedder.
  const embedderEnv = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('DOCSEARCH_EMBEDDER') && e[1] !== undefined));
  const app = await startBenchApp({ env: { ...embedderEnv, DOCSEARCH_RERANKER: 'none' } });
  const embedder = app.handle.services.embedder.signature;
  try {
    const t0 = performance.now();
    const progress = (what: string) => console.error(`${what}: ${rows.length} rows, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    await scifactTrainRows(app, visit, perSet * 2);
    progress('scifact');
    for (const l of langs) {
      await xquadTrainRows(app, l, visit, perSet);
      progress(`xquad-${l}`);
    }
  } finally {
    await app.close();
  }
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  fs.writeFileSync(cache, JSON.stringify(rows));
  return { rows, embedder };
}
