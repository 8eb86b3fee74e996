// Answers in context against the real HTTP server: "done means searchable" (two documents ingested at once into a
// fresh project and searched the moment their jobs report done) and scores that do not make a second
// relevant passage vanish behind a first one (a billing-cutover deck).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestServer } from './helpers/start-test-server.ts';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, ingestFile, waitForJob } from './helpers/api.ts';

const DECK = `# Billing platform migration

## Why we migrate
The old billing system runs on hardware that leaves support in 2027. Invoices take four days to produce.

## Timeline
Design reviews finish in November. Data migration rehearsals run through January.

## Cutover
The cutover happens on Saturday, 6 February 2027, between 06:00 and 14:00 CET. The billing system is
read-only during the cutover window.

## After the cutover
Support for the old billing system ends one month after the cutover, on 6 March 2027.
`;

const NOTES = `# Office notes

The cafeteria closes early on Fridays. Parking permits are renewed every January at the front desk.
The quarterly all-hands meeting moves to the large auditorium. Bring your badge to every meeting.
`;

describe('answers in the default context', () => {
  let fx: ProjectFixture;
  let server: TestServer;
  let key: string;
  let dir: string;
  let deckId: string;

  before(async () => {
    fx = await startProjectFixture('answers-');
    ({ server, key, dir } = fx);
    fs.writeFileSync(path.join(dir, 'billing-migration.md'), DECK);
    fs.writeFileSync(path.join(dir, 'office-notes.md'), NOTES);
    // Both at once into a fresh namespace: the second commit lands after the first built the FTS index.
    const jobs = await Promise.all(['billing-migration.md', 'office-notes.md'].map((f) => ingestFile(server.baseUrl, key, path.join(dir, f))));
    const done = await Promise.all(jobs.map((j) => waitForJob(server.baseUrl, key, (j.body as { job_id: string }).job_id)));
    for (const d of done) assert.equal(d.status, 'done', JSON.stringify(d));
    deckId = done[0].doc_id!;
  });
  after(() => fx?.close());

  test('a document is BM25-indexed when its job reports done, and found by the default request at once', async () => {
    const list = await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs');
    for (const d of (list.body as { documents: Array<{ bm25_state: string }> }).documents) assert.equal(d.bm25_state, 'indexed');
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'When is the billing system cutover?' });
    assert.equal(r.status, 200);
    const ctx = (r.body as { context: string }).context;
    assert.ok(ctx.includes('6 February 2027'), ctx);
  });

  test('the answering slide passes min_relevance whatever another slide scores', async () => {
    // The answer scored 0.0047 behind the previous slide's 0.87 with relative features.
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'When is the billing system cutover?', format: 'json', expand_tightness: 0 });
    assert.equal(r.status, 200);
    const hits = (r.body as { results: Array<{ doc_id: string; content: string; score: number }> }).results;
    const answer = hits.find((h) => h.doc_id === deckId && h.content.includes('6 February 2027'));
    assert.ok(answer && answer.score >= 0.3, JSON.stringify(hits));
    assert.ok(hits.every((h) => h.score >= 0.3));
  });

  test('an instruction-wrapped question finds the same answer', async () => {
    const query = 'Assume you are a project manager preparing a status update. When is the billing system cutover? Answer using only the provided documents and cite them.';
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query });
    assert.ok((r.body as { context: string }).context.includes('6 February 2027'));
  });
});
