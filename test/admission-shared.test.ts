// Rate limits shared across API processes: two application instances on one PostgreSQL
// database count against one budget per project and per client IP (control-plane counters,
// DOCSEARCH_RATE_LIMIT_STORE=shared, the default with PostgreSQL), and the counters themselves are
// exact under concurrent hits on both control planes.
// Runs alone: counts requests in per-minute rate windows across processes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { BACKENDS, createTestDatabase, openTestControlPlane, startTestServer, createProject, request, type TestServer } from './helpers/index.ts';
import type { ControlPlane } from '../src/storage/db.ts';
import { RateCounters } from '../src/storage/rate-counters.ts';

describe('two API instances on one PostgreSQL share the rate limits', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const servers: TestServer[] = [];
  before(async () => {
    db = await createTestDatabase();
    // The same bootstrap credentials and secret: two processes of one deployment.
    const shared = {
      DOCSEARCH_DATABASE_URL: db.url,
      DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: 'svc_acc_' + crypto.randomBytes(32).toString('base64url'),
      DOCSEARCH_BOOTSTRAP_PASSWORD: crypto.randomBytes(12).toString('base64url'),
      DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'),
      DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '4',
      DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '30',
    };
    for (let i = 0; i < 2; i++) servers.push(await startTestServer({ backend: 'sqlite', workers: false, env: shared }));
    for (const s of servers) s.accountKey = shared.DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY;
  });
  after(async () => {
    for (const s of servers) await s.close();
    await db?.drop();
  });

  test('per-project search budget: 2 + 2 searches on the two instances use it up; the fifth is refused on either', async () => {
    assert.equal(servers[0].services.config.admission?.rateLimitStore, 'shared');
    const [one, two] = servers;
    const p = await createProject(one);
    const search = (s: TestServer) => request(s, 'POST', '/v3/docsearch/search', { token: p.apiKey, body: { query: 'anything' } });
    for (const s of [one, two, one, two]) assert.equal((await search(s)).status, 200);
    for (const s of [one, two]) {
      const r = await search(s);
      assert.equal(r.status, 429, JSON.stringify(r.body));
      assert.equal(r.body.code, 'rate_limited');
      assert.equal(r.body.details.scope, 'search per-project');
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    }
    const other = await createProject(two);
    assert.equal((await request(one, 'POST', '/v3/docsearch/search', { token: other.apiKey, body: { query: 'x' } })).status, 200, 'another project has its own budget');
  });

  test('per-IP budget is shared too', async () => {
    const [one, two] = servers;
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(429); i++) {
      statuses.push((await request(i % 2 ? two : one, 'GET', '/v3/jobs/x/status', { token: 'bad-key' })).status);
    }
    // 30 per minute over both instances, some of it spent by the previous test (same client address).
    assert.ok(statuses.includes(429), statuses.join());
    assert.ok(statuses.length <= 30, `${statuses.length} requests before the first 429`);
  });
});

for (const backend of BACKENDS) {
  describe(`control-plane rate counters (${backend})`, () => {
    let cp: ControlPlane;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ cp, close } = await openTestControlPlane(backend, 'docsearch-rate-'));
    });
    after(async () => {
      await close?.();
    });

    test('concurrent hits are each counted once; a window ends and the next starts at 1', async () => {
      let clock = 1_000_000;
      const a = new RateCounters(cp, () => clock);
      const b = new RateCounters(cp, () => clock);
      const hits = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).hit('k', 60_000)));
      assert.deepEqual(hits.map((h) => h.hits).sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 1));
      assert.ok(hits.every((h) => h.resetAtMs === 1_060_000));
      assert.deepEqual(await a.peek('k'), { hits: 40, resetAtMs: 1_060_000 });
      clock += 60_000;
      assert.deepEqual(await b.hit('k', 60_000), { hits: 1, resetAtMs: 1_120_000 });
      assert.equal((await a.hit('other', 1000)).hits, 1, 'keys are separate');
    });
  });
}
