// The evaluation API against the real server on SQLite and PostgreSQL: a namespace of real XQuAD
// paragraphs, 50 cases with known answers and two variants. The report's found shares equal what the
// same searches through the public search endpoints give, the recommended min_relevance is the best of
// its sweep, the job endpoints follow the run, bad input is a 400 naming the field and stores nothing,
// an unknown doc_id is a per-case result, the stored report outlives the documents, and reports go with
// the project.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BACKENDS, startTestServer, createProject, type TestServer } from './helpers/index.ts';
import { api } from './helpers/api.ts';
import { ingestXquadCases, norm, waitForEvaluation, type FixtureCase } from './helpers/evaluation-fixture.ts';

const VARIANTS = [{}, { name: 'tight', min_relevance: 0.5, target_tokens: 300 }];

/** Found in context by the public endpoints: answers in the prompt-ready context, else a hit of doc_id among the JSON hits. */
async function foundByApi(baseUrl: string, key: string, c: FixtureCase, fields: Record<string, unknown>): Promise<boolean> {
  const { name: _n, ...body } = fields;
  if (c.answers) {
    const r = await api(baseUrl, key, 'POST', '/v3/docsearch/search', { query: c.query, ...body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const ctx = norm((r.body as { context: string }).context);
    return c.answers.some((a) => ctx.includes(norm(a)));
  }
  const r = await api(baseUrl, key, 'POST', '/v3/docsearch/search', { query: c.query, ...body, format: 'json' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { results: Array<{ doc_id: string }> }).results.some((h) => h.doc_id === c.doc_id);
}

for (const backend of BACKENDS) {
  describe(`evaluations (${backend})`, () => {
    let server: TestServer;
    let key: string;
    let dir: string;
    let cases: FixtureCase[];
    let docOf: Map<string, string>;
    let report: Record<string, any>;

    before(async () => {
      server = await startTestServer({ backend, env: { DOCSEARCH_RATE_LIMIT_EVALUATIONS_PER_MIN: '16' } });
      ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evaluations-'));
      ({ cases, docOf } = await ingestXquadCases(server.baseUrl, key, dir, 10, 5));
      assert.equal(cases.length, 50);
    });
    after(async () => {
      await server?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('50 cases, two variants: a job whose report matches the public searches', async () => {
      const created = await api(server.baseUrl, key, 'POST', '/v3/docsearch/evaluations', { name: 'xquad', cases, variants: VARIANTS });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      const ev = created.body as { evaluation_id: string; job_id: string; status: string; progress: { total: number } };
      assert.equal(ev.status, 'pending');
      assert.equal(ev.progress.total, 100);
      // One evaluation pending or running per project.
      const second = await api(server.baseUrl, key, 'POST', '/v3/docsearch/evaluations', { cases: cases.slice(0, 1) });
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.equal((second.body as { code: string }).code, 'evaluation_running');
      const done = await waitForEvaluation(server.baseUrl, key, ev.evaluation_id);
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      report = done.report;
      assert.equal(report.variants.length, 2);
      assert.doesNotMatch(JSON.stringify(done), /search_units/);
      // The job endpoints know it as a job of the project.
      const job = await api(server.baseUrl, key, 'GET', `/v3/jobs/${ev.job_id}/status`);
      assert.equal((job.body as { status: string }).status, 'done');
      const stream = await fetch(`${server.baseUrl}/status/v1/jobs/${ev.job_id}`, { headers: { authorization: `Bearer ${key}` } });
      assert.match(await stream.text(), /"status":"done"/);

      for (const [vi, v] of VARIANTS.entries()) {
        const r = report.variants[vi];
        assert.equal(r.cases, 50);
        assert.equal(r.evaluated, 50);
        const byApi: boolean[] = [];
        for (const c of cases) byApi.push(await foundByApi(server.baseUrl, key, c, v));
        assert.deepEqual(r.per_case.map((p: { found: boolean }) => p.found), byApi, `variant ${r.name}`);
        assert.equal(r.found, byApi.filter(Boolean).length);
        assert.equal(r.found_share, Math.round((r.found / 50) * 1000) / 1000);
        const missed = Object.values(r.misses as Record<string, number>).reduce((s, n) => s + n, 0);
        assert.equal(missed, 50 - r.found);
        for (const p of r.per_case) if (!p.found) assert.ok(p.miss_cause, JSON.stringify(p));
        for (const k of ['recall_at_10', 'mrr', 'ndcg_at_10', 'found_share']) assert.ok(r[k] >= 0 && r[k] <= 1, k);
        assert.ok(r.tokens_p95 >= r.tokens_mean * 0 && r.latency_ms.p95 >= r.latency_ms.p50);
        assert.ok(r.reliability.length > 0 && r.reliability.every((b: { n: number }) => b.n > 0));
        // The recommendation is the best point of the sweep (the highest value on a tie), and its share is real.
        const best = Math.max(...r.min_relevance_sweep.map((p: { found: number }) => p.found));
        const top = r.min_relevance_sweep.filter((p: { found: number }) => p.found === best).at(-1);
        assert.equal(r.recommended_min_relevance.value, top.min_relevance);
        assert.equal(r.recommended_min_relevance.found_share, top.found_share);
        const own = r.min_relevance_sweep.find((p: { min_relevance: number }) => p.min_relevance === ((v as { min_relevance?: number }).min_relevance ?? 0.3));
        assert.equal(own.found, r.found);
        if (vi === 0) {
          let at = 0;
          for (const c of cases) if (await foundByApi(server.baseUrl, key, c, { min_relevance: top.min_relevance })) at++;
          assert.equal(at, top.found);
        }
      }
      // The default request finds most answers in these paragraphs (50/50 when written); the tight variant spends no more tokens.
      assert.ok(report.variants[0].found_share >= 0.6, JSON.stringify(report.variants[0].misses));
      assert.ok(report.variants[1].tokens_mean <= report.variants[0].tokens_mean);
    });

    test('listed without the report; deleting a document leaves the stored report readable', async () => {
      const list = await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations');
      const items = (list.body as { evaluations: Array<Record<string, any>> }).evaluations;
      assert.equal(items.length, 1);
      assert.equal(items[0].report, undefined);
      assert.equal(items[0].summary.length, 2);
      const del = await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/docs/${encodeURIComponent([...docOf.values()][0])}`);
      assert.equal(del.status, 200);
      const again = await api(server.baseUrl, key, 'GET', `/v3/docsearch/evaluations/${items[0].evaluation_id}`);
      assert.deepEqual((again.body as { report: unknown }).report, report);
    });

    test('an unknown doc_id is reported per case, not a failure; doc_ids names several documents', async () => {
      const gone = [...docOf.values()][0];
      const own = cases[10].doc_id!;
      const other = [...docOf.values()].find((d) => d !== gone && d !== own)!;
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/evaluations', {
        cases: [{ id: 'a', query: 'Who won Super Bowl 50?', doc_id: 'no-such-doc' }, { query: cases[10].query, doc_id: gone }, cases[10],
          { id: 'several', query: cases[10].query, doc_ids: [other, own] }, { query: cases[10].query, doc_ids: [own, 'no-such-doc'] }],
        variants: [{ name: 'in-doc', search_in_doc: true }],
      });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const done = await waitForEvaluation(server.baseUrl, key, (r.body as { evaluation_id: string }).evaluation_id);
      assert.equal(done.status, 'done');
      const v = done.report.variants[0];
      assert.deepEqual(v.per_case.slice(0, 2).map((p: { miss_cause: string }) => p.miss_cause), ['unknown_document', 'unknown_document']);
      assert.equal(v.per_case[0].id, 'a');
      assert.equal(v.per_case[0].error.code, 'document_not_found');
      assert.equal(v.per_case[3].id, 'several');
      assert.equal(v.per_case[3].found, true, 'a hit of either document is evidence (asked over the namespace: two documents)');
      assert.equal(v.per_case[4].miss_cause, 'unknown_document');
      assert.equal(v.evaluated, 2);
      assert.equal(v.misses.unknown_document, 3);
    });

    test('bad input: a 400 naming the field, and nothing stored', async () => {
      const before = ((await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations')).body as { evaluations: unknown[] }).evaluations.length;
      const tooMany = Array.from({ length: 1001 }, (_, i) => ({ query: `q${i}`, answers: ['x'] }));
      const bad: Array<[unknown, string, RegExp]> = [
        [{ cases: tooMany }, 'body.cases', /1000/],
        [{ cases: [cases[0]], variants: [{ min_relevance: 2 }] }, 'body.variants.0.min_relevance', /<= 1/],
        [{ cases: [cases[0]], variants: [{}, { target_tokens: 50 }] }, 'body.variants.1.target_tokens', />= 100/],
        [{ cases: [cases[0]], variants: [{}, {}, {}, {}, {}] }, 'body.variants', /4/],
        [{ cases: [{ query: 'who?' }] }, 'body.cases.0', /doc_id \(or doc_ids\), answers/],
        [{ cases: [{ query: 'who?', doc_id: 'a', doc_ids: ['b'] }] }, 'body.cases.0.doc_ids', /not both/],
        [{ cases: [{ query: 'who?', doc_ids: ['a'], pages: [1] }] }, 'body.cases.0.pages', /doc_id/],
        [{ cases: [{ query: 'who?', doc_ids: [] }] }, 'body.cases.0.doc_ids', /fewer than 1/],
        [{ cases: [{ query: 'who?', answers: ['x'], pages: [1] }] }, 'body.cases.0.pages', /doc_id/],
        [{ cases: [{ query: '', answers: ['x'] }] }, 'body.cases.0.query', /fewer than 1/],
        [{ cases: [cases[0]], variants: [{ top_k: 3 }] }, 'body.variants.0.top_k', /additional/],
        [{ cases: [] }, 'body.cases', /fewer than 1/],
      ];
      for (const [body, field, message] of bad) {
        const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/evaluations', body);
        assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body)}`);
        const err = r.body as { code: string; message: string; details: { field: string } };
        assert.equal(err.code, 'validation_failed');
        assert.equal(err.details.field, field, err.message);
        assert.match(err.message, message);
      }
      const after = ((await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations')).body as { evaluations: unknown[] }).evaluations.length;
      assert.equal(after, before);
      const badLimit = await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations?limit=101');
      assert.equal(badLimit.status, 400);
      assert.equal((badLimit.body as { details: { field: string } }).details.field, 'querystring.limit');
      assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations?limit=1')).body as { evaluations: unknown[] }).evaluations.length, 1);
      const missing = await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations/nope');
      assert.equal(missing.status, 404);
      assert.equal((missing.body as { code: string }).code, 'evaluation_not_found');
    });

    test('delete, its own rate limit, and deletion with the project', async () => {
      const other = await createProject(server, { product: 'docsearch' });
      const r = await api(server.baseUrl, other.apiKey, 'POST', '/v3/docsearch/evaluations', { cases: [{ query: 'anything', answers: ['x'] }] });
      assert.equal(r.status, 202);
      const id = (r.body as { evaluation_id: string }).evaluation_id;
      await waitForEvaluation(server.baseUrl, other.apiKey, id);
      // Another project cannot see it.
      assert.equal((await api(server.baseUrl, key, 'GET', `/v3/docsearch/evaluations/${id}`)).status, 404);
      const gone = await api(server.baseUrl, server.accountKey, 'DELETE', `/v3/projects/${other.projectId}`);
      assert.ok(gone.status === 200 || gone.status === 202 || gone.status === 204, JSON.stringify(gone.body));
      const left = await server.services.cp.db.selectFrom('evaluations').select('id').where('project_id', '=', other.projectId).execute();
      assert.equal(left.length, 0);
      const list = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations')).body as { evaluations: Array<{ evaluation_id: string }> };
      const del = await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/evaluations/${list.evaluations[0].evaluation_id}`);
      assert.equal(del.status, 200);
      assert.equal((await api(server.baseUrl, key, 'GET', `/v3/docsearch/evaluations/${list.evaluations[0].evaluation_id}`)).status, 404);
      // 16 evaluation requests a minute (this server's setting), counted apart from searches.
      let status = 0;
      for (let i = 0; i < 17 && status !== 429; i++) status = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/evaluations', { cases: [] })).status;
      assert.equal(status, 429);
      const search = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'Super Bowl' });
      assert.equal(search.status, 200);
    });
  });
}
