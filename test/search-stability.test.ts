// Search responses over real HTTP against the real application (SQLite): identical requests on an unchanged
// namespace answer identically, also when many chunks tie on BM25 and cosine (ties are broken by a stable key,
// not by the engine's order of the moment), and `format: json` always types `detected_lang` as a string.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, ingestDocsDone } from './helpers/api.ts';

/** One paragraph every tied document shares word for word, so their chunks score alike on both signals. */
const SHARED = 'The lighthouse keeper wrote the storm log by lamplight while the harbour bell rang over the grey water. ' +
  'Each night the keeper trimmed the wick, wound the clockwork and counted the ships that passed the reef.';

describe('search stability', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  const search = (body: unknown) => api(server.baseUrl, key, 'POST', '/v3/docsearch/search', body);

  before(async () => {
    server = await startTestServer({ backend: 'sqlite' });
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-stability-'));
    const files: string[] = [];
    // Twelve documents with the same text (names differ): every chunk ties with eleven others.
    for (let i = 0; i < 12; i++) {
      const f = path.join(dir, `keeper-${String(i).padStart(2, '0')}.txt`);
      fs.writeFileSync(f, `${SHARED}\n\n${SHARED}\n`);
      files.push(f);
    }
    await ingestDocsDone(server.baseUrl, key, files);
  });
  after(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('identical searches on an unchanged namespace return identical responses, ties included', async () => {
    for (const body of [
      { query: 'lighthouse keeper storm log', format: 'json', min_relevance: 0 },
      { query: 'keeper', format: 'json', min_relevance: 0 },
      { query: 'lighthouse keeper storm log' },
    ]) {
      const first = await search(body);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      // Copies of one passage in other documents are left out as near-duplicates (stages/near-duplicates.ts):
      // the tie then decides which copy is shown, and that must not change between requests either.
      const hits = (first.body as { results?: unknown[]; result_count: number; results_dropped: number });
      assert.ok(hits.result_count + hits.results_dropped > 1, `several tied hits expected: ${JSON.stringify(first.body).slice(0, 300)}`);
      for (let i = 0; i < 8; i++) {
        const again = await search(body);
        assert.equal(again.status, 200);
        assert.deepEqual(again.body, first.body, `repeat ${i + 1} of ${JSON.stringify(body)} differs`);
      }
    }
  });

  test('format json: detected_lang is a string, "und" when the language cannot be told', async () => {
    const short = await search({ query: 'zx', format: 'json' });
    assert.equal(short.status, 200, JSON.stringify(short.body));
    assert.equal((short.body as { detected_lang: unknown }).detected_lang, 'und');
    const english = await search({ query: 'the lighthouse keeper wrote the storm log at night', format: 'json' });
    assert.equal((english.body as { detected_lang: unknown }).detected_lang, 'en');
    // The prompt-ready shape keeps null for "undetermined", as the contract's RetrievalContext allows.
    const ready = await search({ query: 'zx' });
    assert.equal((ready.body as { detected_lang: unknown }).detected_lang, null);
  });
});
