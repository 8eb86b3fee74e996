// The backup tests' documents and what a restored deployment must show, shared by both control planes
// (test/backup-restore.test.ts, test/backup-restore-postgres.test.ts). Documents: three ingested and done
// before the backup, three more enqueued while it is taken. A restored server shows, before it runs any
// job, exactly the snapshot's documents, each searchable in itself, and no other document found; once
// the jobs caught in flight have run again, the same documents and search results as the original.
import assert from 'node:assert/strict';
import { api, dataPath, ingestFile, waitForJob } from './api.ts';

/** Ingested and done before the backup. */
export const DOCS_BEFORE = ['md/wiki.md', 'md/nested.md', 'txt/norwich-city.txt'];
/** Enqueued while the backup is taken. */
export const DOCS_DURING = ['md/codeblock.md', 'md/simple-table.md', 'txt/eng_afr_spa.txt'];

/** Upload files of ../shared/data/docs at once. @returns their job ids */
export async function enqueueDocs(baseUrl: string, key: string, files: string[]): Promise<string[]> {
  return Promise.all(files.map(async (f) => {
    const r = await ingestFile(baseUrl, key, dataPath('docs', f));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return (r.body as { job_id: string }).job_id;
  }));
}

/** Upload files and wait until each job is done. */
export async function ingestDocs(baseUrl: string, key: string, files: string[]): Promise<void> {
  for (const id of await enqueueDocs(baseUrl, key, files)) assert.equal((await waitForJob(baseUrl, key, id)).status, 'done');
}

/** Queries over the backup tests' documents (../shared/data/docs fixtures). */
export const RESTORE_QUERIES = ['Iwan Roberts Norwich City forward', 'a list featuring nesting abc123', 'IBM research organization Armonk', 'code block example', 'table with columns'];

interface Hit { doc_id: string; score: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The project's document ids on a server, sorted. */
async function listDocs(baseUrl: string, key: string): Promise<string[]> {
  return ((await api(baseUrl, key, 'GET', '/v3/docsearch/docs')).body as { documents: { doc_id: string }[] }).documents.map((d) => d.doc_id).sort();
}

/** A query's full ranking on a server as "doc_id score" lines (scores to 6 decimals). */
async function ranking(baseUrl: string, key: string, query: string): Promise<string[]> {
  const r = await api(baseUrl, key, 'POST', '/v3/docsearch/search', { query, format: 'json', min_relevance: 0 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { results: Hit[] }).results.map((h) => [h.doc_id, h.score.toFixed(6)].join(' '));
}

/**
 * Before the restored server runs any job: it lists exactly `snapDocs`, each has rows (searchInDoc finds
 * something), and no query finds another document.
 */
export async function assertSnapshotServed(restored: string, key: string, snapDocs: string[]): Promise<void> {
  assert.deepEqual(await listDocs(restored, key), snapDocs);
  for (const docId of snapDocs) {
    const r = await api(restored, key, 'POST', '/v3/docsearch/searchInDoc', { query: 'the', doc_filter: docId, format: 'json', min_relevance: 0 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok((r.body as { results: Hit[] }).results.length > 0, `${docId} has its rows`);
  }
  for (const q of RESTORE_QUERIES) for (const hit of await ranking(restored, key, q)) assert.ok(snapDocs.includes(hit.split(' ')[0]), `${q}: only committed documents are found`);
}

/**
 * After the restored server's workers started: within `timeoutMs` it lists the original's documents, and
 * every query ranks alike on both.
 */
export async function assertConverges(restored: string, original: string, key: string, timeoutMs: number): Promise<void> {
  const want = await listDocs(original, key);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && JSON.stringify(await listDocs(restored, key)) !== JSON.stringify(want)) await sleep(200);
  assert.deepEqual(await listDocs(restored, key), want);
  for (const q of RESTORE_QUERIES) assert.deepEqual(await ranking(restored, key, q), await ranking(original, key, q), q);
}
