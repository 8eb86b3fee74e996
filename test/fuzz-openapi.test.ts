// Standing attack test (issue 13 part 4): 300 seeded requests generated from the service's own OpenAPI
// document (test/helpers/openapi-fuzz.ts) against a real server on loopback. No request may get a 5xx,
// and every error body must be {code, message, status, details?} with status equal to the HTTP status.
// Operations that would reach out of the machine (bucket sources and their credentials) are left out;
// workers are off, so nothing accepted is fetched or processed. FUZZ_RUNS / FUZZ_SEED change the run.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { operations, requestArb, type FuzzRequest } from './helpers/openapi-fuzz.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 1313);

describe('OpenAPI-driven fuzzing', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  const ids: string[] = [];

  before(async () => {
    server = await startTestServer({ backend: 'sqlite', workers: false });
    const p = await createProject(server);
    auth = { authorization: `Bearer ${p.apiKey}` };
    const res = await fetch(`${server.baseUrl}/v3/docsearch/ingest`, {
      method: 'POST', body: 'fuzz target',
      headers: { ...auth, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="f.txt"' },
    });
    const job = (await res.json()) as { job_id: string; doc_id?: string };
    ids.push(p.projectId, job.job_id, ...(job.doc_id ? [job.doc_id] : []));
  });
  after(async () => server?.close());

  async function send(r: FuzzRequest): Promise<{ status: number; text: string; type: string }> {
    const res = await fetch(server.baseUrl + r.path, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(15_000) });
    const type = res.headers.get('content-type') ?? '';
    // A job status stream for a real job would stay open: its headers are enough.
    const text = type.startsWith('text/event-stream') ? (await res.body?.cancel(), '') : await res.text();
    return { status: res.status, text, type };
  }

  test(`${RUNS} generated requests: no 5xx, every error in the one shape`, { timeout: 600_000 }, async (t) => {
    const doc = await (await fetch(`${server.baseUrl}/v3/openapi.json`)).json() as Record<string, any>;
    const ops = operations(doc, (method, path) => (path.includes('/ingestBucket') && (method === 'POST' || method === 'PATCH') && !/pause|resume|retryFailed/.test(path))
      || (method === 'DELETE' && path === '/v3/projects/{id}'));
    assert.ok(ops.length >= 20, `${ops.length} operations`);
    const requests = fc.sample(requestArb(ops, doc, auth, ids), { seed: SEED, numRuns: RUNS });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (const r of requests) {
      const res = await send(r);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const where = `${r.method} ${r.path.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 200)}`;
      if (res.status >= 500) failures.push(`5xx: ${where}`);
      else if (res.status >= 400) {
        let body: Record<string, unknown> | undefined;
        try { body = JSON.parse(res.text); } catch { /* reported below */ }
        const keys = body ? Object.keys(body).filter((k) => k !== 'details').sort().join() : '';
        if (!body || keys !== 'code,message,status' || body.status !== res.status || typeof body.code !== 'string') failures.push(`shape: ${where}`);
      }
    }
    t.diagnostic(`statuses ${JSON.stringify([...statuses].sort((a, b) => a[0] - b[0]))}`);
    assert.deepEqual(failures, [], `statuses ${JSON.stringify([...statuses])}`);
    assert.ok([...statuses.keys()].some((s) => s < 300) && [...statuses.keys()].some((s) => s >= 400), `statuses ${JSON.stringify([...statuses])}`);
  });
});
