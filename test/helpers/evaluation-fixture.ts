// Real labelled documents for the evaluation tests: XQuAD (English) paragraphs from ../shared/data
// written as Markdown files, ingested through the real API, and their questions as evaluation cases
// whose expectations mix the three kinds the API takes (doc_id with answers, doc_id alone, answers alone).
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { dataPath, ingestFile, waitForJob } from './api.ts';

interface Para { _id: string; title: string; text: string }
interface Query { _id: string; text: string; metadata: { answers: string[] } }

/** One evaluation case as the API takes it. */
export interface FixtureCase {
  id: string;
  query: string;
  doc_id?: string;
  answers?: string[];
}

function readJsonl<T>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
}

/**
 * Ingest the first `docs` XQuAD paragraphs (in id order) that have at least `perDoc` questions, and build
 * `perDoc` cases per paragraph. Case k gets doc_id + answers (k mod 3 = 0), doc_id only (1) or answers only (2).
 * @param dir scratch directory for the Markdown files
 * @returns the cases and the doc_id of each paragraph id
 */
export async function ingestXquadCases(baseUrl: string, key: string, dir: string, docs: number, perDoc: number): Promise<{ cases: FixtureCase[]; docOf: Map<string, string> }> {
  const root = dataPath('beir', 'xquad-en');
  const paras = new Map(readJsonl<Para>(path.join(root, 'corpus.jsonl')).map((p) => [p._id, p]));
  const queries = new Map(readJsonl<Query>(path.join(root, 'queries.jsonl')).map((q) => [q._id, q]));
  const byDoc = new Map<string, string[]>();
  for (const line of fs.readFileSync(path.join(root, 'qrels', 'test.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, d] = line.split('\t');
    if (q && d) byDoc.set(d, [...(byDoc.get(d) ?? []), q]);
  }
  const picked = [...byDoc.keys()].sort().filter((d) => byDoc.get(d)!.length >= perDoc).slice(0, docs);
  const files = picked.map((id) => {
    const p = paras.get(id)!;
    const file = path.join(dir, `${id}.md`);
    fs.writeFileSync(file, `# ${p.title.replace(/_/g, ' ')} (${id})\n\n${p.text}\n`);
    return file;
  });
  // All uploaded at once, then waited for: the worker runs them side by side.
  const jobs = await Promise.all(files.map(async (f) => {
    const r = await ingestFile(baseUrl, key, f);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return (r.body as { job_id: string }).job_id;
  }));
  const docOf = new Map<string, string>();
  for (const [i, job] of jobs.entries()) {
    const done = await waitForJob(baseUrl, key, job);
    assert.equal(done.status, 'done', JSON.stringify(done));
    docOf.set(picked[i], done.doc_id!);
  }
  const cases: FixtureCase[] = [];
  for (const d of picked) {
    for (const qid of byDoc.get(d)!.slice(0, perDoc)) {
      const q = queries.get(qid)!;
      const k = cases.length % 3;
      cases.push({
        id: qid, query: q.text,
        ...(k !== 2 ? { doc_id: docOf.get(d)! } : {}),
        ...(k !== 1 ? { answers: q.metadata.answers } : {}),
      });
    }
  }
  return { cases, docOf };
}

/** Lower-cased, NFKC-normalised, whitespace-collapsed text (the documented answer matching). */
export function norm(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
}

/** Poll GET /v3/docsearch/evaluations/{id} until it is no longer pending or running. */
export async function waitForEvaluation(baseUrl: string, key: string, id: string, timeoutMs = 240_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${baseUrl}/v3/docsearch/evaluations/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as Record<string, any>;
    if (res.status !== 200) throw new Error(`evaluation ${res.status}: ${JSON.stringify(body)}`);
    if (body.status !== 'pending' && body.status !== 'running') return body;
    if (Date.now() > deadline) throw new Error(`evaluation ${id} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
