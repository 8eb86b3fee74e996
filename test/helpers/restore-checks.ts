// What a restored deployment must show, shared by the backup tests of both control planes
// (test/backup-restore.test.ts, test/backup-restore-postgres.test.ts): before it runs any job, exactly the
// snapshot's documents, each searchable in itself, and no other document found; once the jobs caught in
// flight have run again, the same documents and the same search results as the original server.
import assert from 'node:assert/strict';
import { api } from './api.ts';

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
