// The data sets of the answer-in-context evaluation (bench/answers.ts), each loaded into real
// docsearch projects and asked through the HTTP layer:
//   financebench  the 43 filings of qa/financebench and qa/financebench-dev ingested into ONE project
//                 through POST /docsearch/ingest (real parse/chunk/embed jobs); each set's questions (30
//                 and 47) asked there; success = a hit of the right filing on the evidence page is in the
//                 context
//   xquad-<lang>  QA over namespaces of 1 and 10 Wikipedia paragraphs; success = the answer text is in
//                 the context. Only questions of odd-numbered articles (the test half) are asked; the even
//                 half is the training split of bench/fit-relevance.ts.
//   scifact       test claims over namespaces holding their relevant abstracts among 0, 10 and 1 000
//                 others; success = a relevant abstract is in the context
import fs from 'node:fs';
import path from 'node:path';
import { loadBeir, readJsonl, repoRoot, type BeirDoc, type Qrels } from './beir.ts';
import { createBenchProject, type BenchApp } from './bench-app.ts';
import { ingestCorpus } from './corpus.ts';
import { rng } from './random.ts';
import { normaliseText, type ProjectRef } from './answers-common.ts';
import { judgeOf, type Expectation, type Judge } from '../../src/evaluations/judge.ts';

/** One question of an evaluation case: text, and how to judge a hit / a context (the Judge of src/evaluations/judge.ts). */
export interface EvalQuestion extends Judge {
  id: string;
  text: string;
  project: ProjectRef;
  /** Extra request fields (e.g. doc_filter for searchInDoc). */
  extra?: Record<string, unknown>;
  /** Endpoint (default /v3/docsearch/search). */
  path?: string;
  /** Graded relevance of documents for nDCG/recall at document level. */
  qrels: Map<string, number>;
  /** The expectation the judge was built from, where it was (the evaluation API's case: bench/answers-api.ts). */
  expectation?: Expectation;
}

export interface EvalCase {
  name: string;
  docs: number;
  questions: EvalQuestion[];
  /** Judge the ranking hit by hit (FinanceBench: evidence pages), not document by document. */
  hitLevel?: boolean;
}

const XQUAD_DIR = path.resolve(repoRoot, '../shared/data/qa/xquad');

/** Article index of an XQuAD BEIR doc id `xqAA-pPP`. */
export const xquadArticle = (docId: string): number => Number(docId.slice(2, 4));

async function projectWith(app: BenchApp, name: string, docs: BeirDoc[]): Promise<ProjectRef> {
  const p = await createBenchProject(app, name);
  const s = app.handle.services;
  await ingestCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: p.projectId, namespace: p.namespace }, docs);
  return p;
}

/** XQuAD answers per question id (all gold answer strings). */
export function xquadAnswers(lang: string): Map<string, string[]> {
  const raw = JSON.parse(fs.readFileSync(path.join(XQUAD_DIR, `xquad.${lang}.json`), 'utf8')) as { data: Array<{ paragraphs: Array<{ qas: Array<{ id: string; answers: Array<{ text: string }> }> }> }> };
  const out = new Map<string, string[]>();
  for (const a of raw.data) for (const p of a.paragraphs) for (const q of p.qas) out.set(q.id, q.answers.map((x) => x.text));
  return out;
}

const norm = normaliseText;

/**
 * XQuAD cases for one language: namespaces of `size` consecutive paragraphs (size 1: one paragraph each,
 * only every `stride1`-th paragraph to bound the cost), test-half questions only, at most `limit`.
 */
export async function xquadCases(app: BenchApp, lang: string, sizes: number[], limit: number, split: 'test' | 'train' = 'test'): Promise<EvalCase[]> {
  const { corpus, queries, qrels } = loadBeir(`xquad-${lang}`);
  const answers = xquadAnswers(lang);
  const wantOdd = split === 'test';
  const byDoc = new Map<string, string[]>();
  for (const q of queries) {
    const d = [...qrels.get(q._id)!.keys()][0];
    if ((xquadArticle(d) % 2 === 1) !== wantOdd) continue;
    byDoc.set(d, [...(byDoc.get(d) ?? []), q._id]);
  }
  const qText = new Map(queries.map((q) => [q._id, q.text]));
  const cases: EvalCase[] = [];
  for (const size of sizes) {
    const questions: EvalQuestion[] = [];
    const groups: BeirDoc[][] = [];
    if (size === 1) for (let i = 0; i < corpus.length; i += 6) groups.push([corpus[i]]);
    else if (size >= corpus.length) groups.push(corpus);
    else for (let i = 0; i < corpus.length; i += size) groups.push(corpus.slice(i, i + size));
    for (const [gi, docs] of groups.entries()) {
      const qids = docs.flatMap((d) => byDoc.get(d._id) ?? []);
      if (qids.length === 0) continue;
      const project = await projectWith(app, `xquad-${lang}-${size}-${gi}`, docs);
      for (const qid of qids) {
        const gold = (answers.get(qid) ?? []).map(norm);
        const rel = qrels.get(qid)!;
        questions.push({
          id: qid, text: qText.get(qid)!, project, qrels: rel,
          // The same rule as judgeOf({docId, answers}) where the question has one paragraph (always in XQuAD).
          ...(rel.size === 1 ? { expectation: { docId: [...rel.keys()][0], answers: answers.get(qid) ?? [] } } : {}),
          relevant: (h) => rel.has(h.doc_id) && gold.some((a) => norm(h.content).includes(a)),
          inContext: (ctx) => gold.some((a) => norm(ctx).includes(a)),
        });
      }
    }
    cases.push({ name: `xquad-${lang} n=${size === 1 ? 1 : Math.min(size, corpus.length)}`, docs: Math.min(size, corpus.length), questions: thin(questions, limit) });
  }
  return cases;
}

/**
 * XQuAD "books" for one language, TRAINING split only (questions of even-numbered articles): the 48 articles
 * as 6 documents of 8 articles each (Markdown: an article's title as a `##` heading, then its paragraphs),
 * one namespace; asked over the namespace and with searchInDoc on the question's book. Long documents
 * with QA labels, for deciding how the context uses its budget on documents that span many chunks without
 * looking at FinanceBench (a test set); success = the answer text is in the context.
 */
export async function xquadBookCases(app: BenchApp, lang: string, limit: number): Promise<EvalCase[]> {
  const { corpus, queries, qrels } = loadBeir(`xquad-${lang}`);
  const answers = xquadAnswers(lang);
  const articles = new Map<number, BeirDoc[]>();
  for (const d of corpus) articles.set(xquadArticle(d._id), [...(articles.get(xquadArticle(d._id)) ?? []), d]);
  const order = [...articles.keys()].sort((a, b) => a - b);
  const bookOf = new Map<number, string>();
  const books: BeirDoc[] = [];
  for (let b = 0; b * 8 < order.length; b++) {
    const arts = order.slice(b * 8, b * 8 + 8);
    for (const a of arts) bookOf.set(a, `book${b}`);
    const text = arts.map((a) => `## ${articles.get(a)![0].title.replace(/_/g, ' ')}\n\n${articles.get(a)!.map((p) => p.text).join('\n\n')}`).join('\n\n');
    books.push({ _id: `book${b}`, title: `XQuAD ${lang} book ${b + 1}`, text });
  }
  const project = await projectWith(app, `xquad-${lang}-books`, books);
  const train = thin(queries.filter((q) => xquadArticle([...qrels.get(q._id)!.keys()][0]) % 2 === 0), limit);
  const mk = (inDoc: boolean): EvalQuestion[] => train.map((q) => {
    const book = bookOf.get(xquadArticle([...qrels.get(q._id)!.keys()][0]))!;
    const gold = (answers.get(q._id) ?? []).map(norm);
    const doc = book; // ingestCorpus keeps the corpus id as doc_id
    return {
      id: q._id, text: q.text, project, qrels: new Map([[doc, 1]]),
      extra: inDoc ? { doc_filter: doc } : undefined,
      path: inDoc ? '/v3/docsearch/searchInDoc' : undefined,
      relevant: (h) => h.doc_id === doc && gold.some((a) => norm(h.content).includes(a)),
      inContext: (ctx) => gold.some((a) => norm(ctx).includes(a)),
    };
  });
  return [
    { name: `xquad-${lang} books search (train)`, docs: books.length, questions: mk(false), hitLevel: true },
    { name: `xquad-${lang} books searchInDoc (train)`, docs: 1, questions: mk(true), hitLevel: true },
  ];
}

/** Keep at most `limit` items, evenly spread (deterministic). */
export function thin<T>(xs: T[], limit: number): T[] {
  if (xs.length <= limit) return xs;
  const step = xs.length / limit;
  return Array.from({ length: limit }, (_, i) => xs[Math.floor(i * step)]);
}

/**
 * SciFact test claims over small namespaces: each claim gets a namespace of its relevant abstracts plus
 * `others` random other abstracts (seeded); for `others` ≥ 1 000 one namespace is shared by all claims.
 */
export async function scifactCases(app: BenchApp, othersList: number[], limit: number): Promise<EvalCase[]> {
  const { corpus, queries, qrels } = loadBeir('scifact', 'test');
  const byId = new Map(corpus.map((d) => [d._id, d]));
  const picked = thin(queries, limit);
  const cases: EvalCase[] = [];
  for (const others of othersList) {
    const rand = rng(7 + others);
    const sample = (n: number, not: Set<string>) => {
      const out: BeirDoc[] = [];
      while (out.length < n) {
        const d = corpus[Math.floor(rand() * corpus.length)];
        if (!not.has(d._id) && !out.includes(d)) out.push(d);
      }
      return out;
    };
    const questions: EvalQuestion[] = [];
    let shared: ProjectRef | null = null;
    if (others >= 1000) {
      const rel = new Set(picked.flatMap((q) => [...qrels.get(q._id)!.keys()]));
      shared = await projectWith(app, `scifact-${others}`, [...[...rel].map((id) => byId.get(id)!).filter(Boolean), ...sample(others, rel)]);
    }
    for (const q of picked) {
      const rel = qrels.get(q._id)!;
      const project = shared ?? (await projectWith(app, `scifact-${others}-${q._id}`, [...[...rel.keys()].map((id) => byId.get(id)!).filter(Boolean), ...sample(others, new Set(rel.keys()))]));
      // The same rule as judgeOf({docIds}) (the evaluation API's case: bench/answers-api.ts).
      questions.push({ id: q._id, text: q.text, project, qrels: rel, relevant: (h) => rel.has(h.doc_id), expectation: { docIds: [...rel.keys()] } });
    }
    cases.push({ name: `scifact n=rel+${others}`, docs: others + 1, questions });
  }
  return cases;
}

interface FbQuestion { financebench_id: string; doc_name: string; question: string; evidence: Array<{ evidence_page_num: number }> }

/** The FinanceBench question sets: `financebench` (30 questions, 10 filings) and `financebench-dev` (47, 33). */
export const FINANCEBENCH_SETS = ['financebench', 'financebench-dev'] as const;

/**
 * Ingest every filing of the FinanceBench sets into ONE project through the HTTP API (real parse, chunk and
 * embed jobs), or reuse the project a kept bench app (`--keep DIR`) made before. Returns the project and the
 * doc_id of each filing by its file name without `.pdf`.
 */
async function financebenchNamespace(app: BenchApp): Promise<{ project: ProjectRef; docOf: Map<string, string> }> {
  const state = path.join(app.dataDir, 'financebench-namespace.json');
  if (fs.existsSync(state)) {
    const kept = JSON.parse(fs.readFileSync(state, 'utf8')) as { project: ProjectRef; docOf: Record<string, string> };
    return { project: kept.project, docOf: new Map(Object.entries(kept.docOf)) };
  }
  const project = await createBenchProject(app, 'financebench');
  const docOf = new Map<string, string>();
  const files = FINANCEBENCH_SETS.flatMap((set) => {
    const dir = path.resolve(repoRoot, '../shared/data/qa', set, 'pdfs');
    return fs.readdirSync(dir).filter((f) => f.endsWith('.pdf')).map((f) => path.join(dir, f));
  });
  const jobs = await Promise.all(files.map(async (file) => {
    const f = path.basename(file);
    const res = await app.handle.http.inject({
      method: 'POST', url: '/v3/docsearch/ingest',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${f}"` },
      payload: fs.readFileSync(file),
    });
    if (res.statusCode !== 201 && res.statusCode !== 202) throw new Error(`ingest ${f}: ${res.statusCode} ${res.body}`);
    return { name: f.replace(/\.pdf$/, ''), job: (res.json() as { job_id: string }).job_id };
  }));
  for (const j of jobs) {
    for (;;) {
      const st = (await app.handle.http.inject({ method: 'GET', url: `/v3/jobs/${j.job}/status`, headers: { authorization: `Bearer ${project.apiKey}` } })).json() as { status: string; doc_id?: string; error?: unknown };
      if (st.status === 'done') { docOf.set(j.name, st.doc_id!); break; }
      if (st.status === 'failed') throw new Error(`ingest ${j.name} failed: ${JSON.stringify(st.error)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  fs.writeFileSync(state, JSON.stringify({ project, docOf: Object.fromEntries(docOf) }));
  return { project, docOf };
}

/**
 * FinanceBench at corpus scale: the filings of both sets (43) in one namespace; each set's questions asked
 * over the whole namespace and with searchInDoc on the question's filing. A hit is relevant when it is of
 * the right filing and spans an evidence page (`evidence_page_num` is 0-based, hit pages 1-based).
 */
export async function financebenchCases(app: BenchApp, sets: readonly string[] = FINANCEBENCH_SETS): Promise<EvalCase[]> {
  const { project: p, docOf } = await financebenchNamespace(app);
  const cases: EvalCase[] = [];
  for (const set of sets) {
    const qs = readJsonl<FbQuestion>(path.resolve(repoRoot, '../shared/data/qa', set, 'questions.jsonl'));
    const mk = (inDoc: boolean): EvalQuestion[] => qs.map((q) => {
      const doc = docOf.get(q.doc_name)!;
      const expectation: Expectation = { docId: doc, pages: q.evidence.map((e) => e.evidence_page_num + 1) };
      return {
        id: q.financebench_id, text: q.question, project: p, qrels: new Map([[doc, 1]]),
        extra: inDoc ? { doc_filter: doc } : undefined,
        path: inDoc ? '/v3/docsearch/searchInDoc' : undefined,
        expectation, ...judgeOf(expectation),
      };
    });
    cases.push(
      { name: `${set} search`, docs: docOf.size, questions: mk(false), hitLevel: true },
      { name: `${set} searchInDoc`, docs: 1, questions: mk(true), hitLevel: true },
    );
  }
  return cases;
}

export type { Qrels };
