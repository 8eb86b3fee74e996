// Standing attack test: 300 seeded requests generated from the service's own OpenAPI
// document (test/helpers/openapi-fuzz.ts) against a real server on loopback. No request may get a 5xx,
// and every error body must be {code, message, status, details?} with status equal to the HTTP status.
// Operations that would reach out of the machine (bucket sources and their credentials) are left out;
// workers are off, so nothing accepted is fetched or processed. FUZZ_RUNS / FUZZ_SEED change the run.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestServer, type TestServer } from './helpers/start-test-server.ts';
import { fuzzSkip, fuzzTarget, fuzzViolation, operations, requestArb, sendFuzzRequest } from './helpers/openapi-fuzz.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 1313);

describe('OpenAPI-driven fuzzing', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  let ids: string[] = [];

  before(async () => {
    server = await startTestServer({ backend: 'sqlite', workers: false });
    ({ auth, ids } = await fuzzTarget(server));
  });
  after(async () => server?.close());

  test(`${RUNS} generated requests: no 5xx, every error in the one shape`, { timeout: 600_000 }, async (t) => {
    const doc = await (await fetch(`${server.baseUrl}/v3/openapi.json`)).json() as Record<string, any>;
    const ops = operations(doc, fuzzSkip);
    assert.ok(ops.length >= 20, `${ops.length} operations`);
    const requests = fc.sample(requestArb(ops, doc, auth, ids), { seed: SEED, numRuns: RUNS });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (const r of requests) {
      const res = await sendFuzzRequest(server.baseUrl, r);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const bad = fuzzViolation(res);
      if (bad) failures.push(`${bad}: ${r.method} ${r.path.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 200)}`);
    }
    t.diagnostic(`statuses ${JSON.stringify([...statuses].sort((a, b) => a[0] - b[0]))}`);
    assert.deepEqual(failures, [], `statuses ${JSON.stringify([...statuses])}`);
    assert.ok([...statuses.keys()].some((s) => s < 300) && [...statuses.keys()].some((s) => s >= 400), `statuses ${JSON.stringify([...statuses])}`);
  });
});
