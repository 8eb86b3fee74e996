// One document title everywhere (ingest/pipeline.ts TITLE_MAX): the title a parser detects is capped once,
// so the documents row, the label indexed with every chunk and the title that ranking reads are the same
// 500 characters — a runaway <title> neither bloats every chunk's terms nor matches beyond what is stored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestServer } from './helpers/start-test-server.ts';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, ingestFile, waitForJob } from './helpers/api.ts';

let fx: ProjectFixture;
let server: TestServer;
let key: string;
let dir: string;

before(async () => {
  fx = await startProjectFixture('title-cap-');
  ({ server, key, dir } = fx);
});
after(() => fx?.close());

test('a detected title longer than 500 characters is stored and indexed as its first 500', async () => {
  const head = 'Mallard ducks '.repeat(40); // 560 characters
  const file = path.join(dir, 'long-title.html');
  fs.writeFileSync(file, `<html><head><title>${head} zebraquux</title></head><body><p>Mallards dabble for food in shallow ponds and eat seeds, insects and snails.</p></body></html>`);
  const job = await ingestFile(server.baseUrl, key, file);
  assert.equal(job.status, 201, JSON.stringify(job.body));
  const done = await waitForJob(server.baseUrl, key, (job.body as { job_id: string }).job_id);
  assert.equal(done.status, 'done', JSON.stringify(done));
  const doc = await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${done.doc_id as string}`);
  assert.equal((doc.body as { title: string }).title, head.slice(0, 500));
  const search = async (query: string) => (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query, format: 'json', min_relevance: 0 })).body as { results: Array<{ title: string }> };
  const found = await search('what do mallards eat in ponds');
  assert.equal(found.results.length, 1);
  assert.equal(found.results[0].title.length, 500);
  // The word after the 500th character of the detected title is in no stored field: it matches nothing.
  assert.equal((await search('zebraquux')).results.length, 0);
});
