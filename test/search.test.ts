// POST /v3/docsearch/search and /searchInDoc over real HTTP against the real application (SQLite): real
// files are ingested through the API, then both response formats, scoping, budgets and every validation
// rule of the spec's search table are checked.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../src/analysis/token-count.ts';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { dataPath, ingestFile, waitForJob, api } from './helpers/api.ts';

describe('search endpoints', () => {
  let server: TestServer;
  let key: string;
  const docs: Record<string, string> = {};
  const search = (body: unknown, path = '/v3/docsearch/search') => api(server.baseUrl, key, 'POST', path, body);

  before(async () => {
    server = await startTestServer({ backend: 'sqlite' });
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
    const files = ['html/wiki_duck.html', 'md/wiki.md', 'txt/norwich-city.txt', 'pdf/tracemonkey.pdf'];
    for (const f of files) {
      const job = await ingestFile(server.baseUrl, key, dataPath('docs', f));
      assert.equal(job.status, 201, `ingest ${f}: ${JSON.stringify(job.body)}`);
      const done = await waitForJob(server.baseUrl, key, (job.body as { job_id: string }).job_id);
      assert.equal(done.status, 'done', `${f}: ${JSON.stringify(done)}`);
      docs[f] = done.doc_id as string;
    }
  });
  after(async () => server?.close());

  test('json format: ranked region hits with pages, chunk indices, score and raw signals', async () => {
    const r = await search({ query: 'Norwich City football club stadium', format: 'json' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { results: Array<Record<string, any>>; result_count: number; results_dropped: number; namespace: string; query: string; detected_lang: string | null };
    assert.ok(body.result_count > 0 && body.result_count === body.results.length);
    assert.match(body.namespace, /\S/);
    assert.equal(body.query, 'Norwich City football club stadium');
    const top = body.results[0];
    assert.equal(top.doc_id, docs['txt/norwich-city.txt']);
    assert.deepEqual(Object.keys(top).sort(), ['canonical_url', 'chunk_indices', 'content', 'doc_id', 'pages', 'score', 'scores', 'title'].sort());
    assert.ok(Array.isArray(top.pages) && top.pages.every((p: unknown) => Number.isInteger(p) && (p as number) >= 1));
    assert.ok(top.score >= 0.3 && top.score <= 1);
    assert.deepEqual(Object.keys(top.scores).sort(), ['ann', 'bm25', 'reranker', 'rrf']);
    assert.equal(top.scores.reranker, null);
    assert.ok(top.content.length > 0);
    assert.ok(!('context' in body));
  });

  test('prompt_ready format: context grammar, token estimate, mode and units', async () => {
    const r = await search({ query: 'trace-based just-in-time compilation of JavaScript loops', retrieval_tier: 'advanced' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { context: string; result_count: number; tokens_estimated: number; mode: string; search_units: number; detected_lang: string | null; results_dropped: number };
    assert.match(body.context, new RegExp(`^<context>\\n<doc id="${docs['pdf/tracemonkey.pdf']}" title="[^"]*" pages="\\d+(-\\d+)?">\\n(## [^\\n]+\\n)?\\[p\\d+\\] `));
    assert.ok(body.context.endsWith('</doc>\n</context>'));
    assert.equal(body.tokens_estimated, countTokens(body.context));
    assert.equal(body.mode, 'advanced');
    assert.equal(body.search_units, 1 + Math.ceil(body.tokens_estimated / 1000));
    assert.equal(body.detected_lang, 'en');
    assert.ok(!('assets' in body));
  });

  test('prompt_ready shows each region\'s section headings, which chunk content does not repeat', async () => {
    const r = await search({ query: 'IBM history in the 1960s to 1980s', doc_filter: docs['md/wiki.md'] }, '/v3/docsearch/searchInDoc');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { context: string; tokens_estimated: number };
    const headings = body.context.split('\n').filter((l) => l.startsWith('## '));
    assert.ok(headings.length > 0, body.context.slice(0, 500));
    assert.ok(headings.every((h) => !h.startsWith('## IBM >')), 'the outermost heading equal to the title is not repeated');
    assert.ok(headings.some((h) => /\d{4}s/.test(h)), headings.join(' | '));
    assert.equal(body.tokens_estimated, countTokens(body.context));
    const json = await search({ query: 'IBM history in the 1960s to 1980s', doc_filter: docs['md/wiki.md'], format: 'json' }, '/v3/docsearch/searchInDoc');
    assert.ok((json.body as { results: Array<{ content: string }> }).results.every((h) => !h.content.includes('## ')), 'json content stays the chunks as stored');
  });

  test('searchInDoc stays inside its document; unknown document is 404', async () => {
    const duck = docs['html/wiki_duck.html'];
    const r = await search({ query: 'duck feathers and diet', doc_filter: duck, format: 'json', min_relevance: 0 }, '/v3/docsearch/searchInDoc');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const results = (r.body as { results: Array<{ doc_id: string }> }).results;
    assert.ok(results.length > 0 && results.every((h) => h.doc_id === duck));
    const missing = await search({ query: 'duck', doc_filter: 'no-such-doc' }, '/v3/docsearch/searchInDoc');
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { code: string }).code, 'document_not_found');
    const viaSearch = await search({ query: 'duck', doc_filter: 'no-such-doc' });
    assert.equal(viaSearch.status, 404);
  });

  test('searchInDoc requires query and a non-empty doc_filter', async () => {
    for (const body of [{ query: 'duck' }, { query: 'duck', doc_filter: '' }, { doc_filter: docs['html/wiki_duck.html'] }]) {
      const r = await search(body, '/v3/docsearch/searchInDoc');
      assert.equal(r.status, 400, JSON.stringify(body));
      const err = r.body as { code: string; message: string };
      assert.equal(err.code, 'validation_failed');
      assert.match(err.message, 'query' in body ? /doc_filter/ : /query/);
    }
  });

  test('out-of-range fields are 400 validation_failed naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ min_relevance: 1.5 }, 'min_relevance'],
      [{ min_top_relevance: -0.1 }, 'min_top_relevance'],
      [{ expand_tightness: 2 }, 'expand_tightness'],
      [{ target_tokens: 99 }, 'target_tokens'],
      [{ max_tokens: 500001 }, 'max_tokens'],
      [{ exclude_doc_ids: Array.from({ length: 101 }, (_, i) => `d${i}`) }, 'exclude_doc_ids'],
      [{ attribute_filters: Array.from({ length: 33 }, () => ({ attr: 'a', op: 'eq', value: 1 })) }, 'attribute_filters'],
      [{ format: 'xml' }, 'format'],
      [{ top_k: 5 }, 'top_k'],
    ];
    for (const [extra, field] of cases) {
      const r = await search({ query: 'duck', ...extra });
      assert.equal(r.status, 400, field);
      const err = r.body as { code: string; message: string };
      assert.equal(err.code, 'validation_failed');
      assert.ok(err.message.includes(field), `${field}: ${err.message}`);
    }
    const noQuery = await search({ format: 'json' });
    assert.equal(noQuery.status, 400);
    assert.match((noQuery.body as { message: string }).message, /query/);
  });

  test('budgets: target above max is lowered to max; a tight budget drops hits and counts them', async () => {
    const q = { query: 'duck', min_relevance: 0 };
    const r = await search({ ...q, target_tokens: 400000, max_tokens: 300 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const tight = r.body as { tokens_estimated: number; results_dropped: number; result_count: number };
    assert.ok(tight.tokens_estimated <= 300, `tokens ${tight.tokens_estimated}`);
    assert.ok(tight.results_dropped > 0);
    const wide = (await search({ ...q, format: 'json' })).body as { result_count: number; results_dropped: number };
    assert.equal(wide.result_count + wide.results_dropped, tight.result_count + tight.results_dropped);
  });

  test('max_tokens is a hard ceiling also when the best hit alone must be cut (100 once gave 101)', async () => {
    let cut = 0;
    for (const query of ['duck', 'trace-based just-in-time compilation of JavaScript loops', 'Norwich City football club stadium']) {
      for (const max of [100, 101, 157]) {
        const r = await search({ query, min_relevance: 0, target_tokens: 100, max_tokens: max });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const body = r.body as { context: string; tokens_estimated: number; result_count: number };
        assert.equal(body.tokens_estimated, countTokens(body.context));
        assert.ok(body.tokens_estimated <= max, `${query}, max ${max}: ${body.tokens_estimated}`);
        if (body.result_count === 1 && body.tokens_estimated > max - 15) cut++;
      }
    }
    assert.ok(cut >= 3, `only ${cut} searches had their one hit cut at the ceiling`);
  });

  test('retrieval tiers: standard fuses only; advanced (or premium) adds the builtin reranker to score and scores', async () => {
    type Hit = { doc_id: string; score: number; scores: { ann: number | null; bm25: number | null; rrf: number; reranker: number | null } };
    const q = { query: 'Norwich City football club stadium', format: 'json', min_relevance: 0 };
    const std = (await search(q)).body as { results: Hit[] };
    const adv = (await search({ ...q, retrieval_tier: 'advanced' })).body as { results: Hit[] };
    const prem = (await search({ ...q, premium: true })).body as { results: Hit[] };
    assert.ok(std.results.length > 1 && adv.results.length > 1);
    assert.ok(std.results.every((h) => h.scores.reranker === null));
    assert.ok(adv.results.some((h) => h.scores.reranker !== null));
    for (const h of adv.results) {
      assert.ok(h.score >= 0 && h.score <= 1);
      // builtin reranker output is the calibrated probability itself
      if (h.scores.reranker !== null) assert.ok(Math.abs(h.score - h.scores.reranker) < 1e-3, JSON.stringify(h));
      assert.equal(typeof h.scores.rrf, 'number');
    }
    for (let i = 1; i < adv.results.length; i++) assert.ok(adv.results[i - 1].score >= adv.results[i].score);
    assert.equal(adv.results[0].doc_id, docs['txt/norwich-city.txt']);
    assert.deepEqual(prem.results.map((h) => [h.doc_id, h.score]), adv.results.map((h) => [h.doc_id, h.score]));
    // min_relevance and min_top_relevance act on the advanced score.
    const cut = (await search({ ...q, retrieval_tier: 'advanced', min_relevance: 0.3 })).body as { results: Hit[] };
    assert.ok(cut.results.length > 0 && cut.results.every((h) => h.score >= 0.3));
    const none = (await search({ ...q, retrieval_tier: 'advanced', min_top_relevance: 0.99999 })).body as { results: Hit[] };
    assert.equal(none.results.length, 0);
    // An explicit retrieval_tier wins over the legacy flag; an unknown tier is a validation error.
    const explicit = (await search({ query: 'duck', retrieval_tier: 'standard', premium: true })).body as { mode: string; search_units: number };
    assert.deepEqual([explicit.mode, explicit.search_units], ['standard', 1]);
    const bad = await search({ query: 'duck', retrieval_tier: 'premium' });
    assert.equal(bad.status, 400);
    assert.match((bad.body as { message: string }).message, /retrieval_tier/);
  });

  test('legacy fields are accepted; a filter on a never-used attribute matches nothing', async () => {
    const legacy = await search({ query: 'duck', premium: true, return_page_images: true, return_assets: false });
    assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
    assert.equal((legacy.body as { mode: string }).mode, 'advanced');
    const attr = await search({ query: 'duck', attribute_filters: [{ attr: 'color', op: 'eq', value: 'red' }] });
    assert.equal(attr.status, 200);
    assert.deepEqual([(attr.body as { context: string }).context, (attr.body as { result_count: number }).result_count], ['<context></context>', 0]);
    const tags = await search({ query: 'duck', meta_tags_any: ['birds'], format: 'json' });
    assert.equal((tags.body as { result_count: number }).result_count, 0);
  });
});
