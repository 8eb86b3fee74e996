// Completion webhooks against a real local HTTP receiver: one signed event per terminal job
// (done, failed, cancelled), verified with the documented Standard Webhooks algorithm; retries with
// backoff after the receiver fails twice, every attempt recorded; delivery after a restart; the SSRF
// guard on the target (at ingest and at connect time); secret endpoint and rotation.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, ingestFile, waitForJob, dataPath } from './helpers/api.ts';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/internal/config.ts';
import { verifyWebhook } from '../src/notifications/webhook-signature.ts';

interface Received { headers: http.IncomingHttpHeaders; body: string; at: number }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A webhook receiver: records every request; answers `failures` 500s per path before 200. */
async function startReceiver() {
  const got = new Map<string, Received[]>();
  const failures = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const list = got.get(req.url!) ?? [];
      list.push({ headers: req.headers, body, at: Date.now() });
      got.set(req.url!, list);
      const left = failures.get(req.url!) ?? 0;
      if (left > 0) { failures.set(req.url!, left - 1); res.writeHead(500).end('try later'); } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port, got, failures,
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    async wait(p: string, n: number, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while ((got.get(p)?.length ?? 0) < n) {
        if (Date.now() > deadline) throw new Error(`${p}: ${got.get(p)?.length ?? 0} of ${n} deliveries`);
        await sleep(20);
      }
      return got.get(p)!;
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Independent check of the documented algorithm: base64(HMAC-SHA256(base64decode(secret without whsec_), id.ts.body)). */
function manualSignature(secret: string, id: string, ts: string, body: string): string {
  return 'v1,' + crypto.createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${ts}.${body}`).digest('base64');
}

describe('completion webhooks', () => {
  let server: TestServer;
  let recv: Awaited<ReturnType<typeof startReceiver>>;
  let key: string;
  let secret: string;
  const env = { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_WEBHOOK_RETRY_BASE_MS: '150', DOCSEARCH_WEBHOOK_MAX_ATTEMPTS: '5' };

  before(async () => {
    recv = await startReceiver();
    server = await startTestServer({ backend: 'sqlite', env });
    ({ apiKey: key } = await createProject(server));
    const s = await api(server.baseUrl, key, 'GET', '/v3/webhooks/secret');
    assert.equal(s.status, 200);
    secret = (s.body as { secret: string }).secret;
  });
  after(async () => {
    await server?.close();
    await recv?.close();
  });

  const completion = (p: string, headers?: Record<string, string>) => ({ 'x-completion': JSON.stringify({ url: recv.url(p), ...(headers ? { headers } : {}) }) });

  test('a done job sends one signed job.completed event that verifies', async () => {
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/webhooks/secret')).body as { secret: string }).secret, secret, 'stable until rotated');
    const r = await ingestFile(server.baseUrl, key, dataPath('docs/md/wiki.md'), completion('/done', { authorization: 'Bearer receiver-token', 'webhook-id': 'forged' }));
    const jobId = (r.body as { job_id: string }).job_id;
    const final = await waitForJob(server.baseUrl, key, jobId);
    const [d] = await recv.wait('/done', 1);
    await sleep(300);
    assert.equal(recv.got.get('/done')!.length, 1, 'exactly one event');
    assert.ok(verifyWebhook(secret, d.headers as Record<string, string>, d.body));
    assert.equal(d.headers['webhook-signature'], manualSignature(secret, d.headers['webhook-id'] as string, d.headers['webhook-timestamp'] as string, d.body));
    assert.match(d.headers['webhook-id'] as string, /^msg_[0-9a-f]{32}$/);
    assert.ok(Math.abs(Number(d.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
    assert.equal(d.headers.authorization, 'Bearer receiver-token', 'X-Completion headers are sent');
    assert.equal(d.headers['content-type'], 'application/json');
    assert.ok(!verifyWebhook(secret, d.headers as Record<string, string>, d.body.replace('done', 'dune')), 'a changed body fails');
    const event = JSON.parse(d.body);
    assert.equal(event.type, 'job.completed');
    assert.equal(event.data.job_id, jobId);
    assert.equal(event.data.status, 'done');
    assert.equal(event.data.doc_id, final.doc_id);
    assert.equal(event.data.is_terminal, true);
    const attempts = await server.services.cp.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', d.headers['webhook-id'] as string).execute();
    assert.deepEqual(attempts.map((a) => [a.attempt, a.status_code, a.error]), [[1, 204, null]]);
    const internal = await server.services.cp.db.selectFrom('jobs').select('id').where('kind', '=', 'internal:webhook').executeTakeFirstOrThrow();
    assert.equal((await api(server.baseUrl, key, 'GET', `/v3/jobs/${internal.id}/status`)).status, 404, 'internal jobs are not exposed');
  });

  test('failed and cancelled jobs notify too, with the error', async () => {
    const bad = await ingestFile(server.baseUrl, key, dataPath('docs/md/wiki.md'), { ...completion('/failed'), 'x-remote-url': recv.url('/file-that-is-not-there.txt') });
    const badId = (bad.body as { job_id: string }).job_id;
    const [f] = await recv.wait('/failed', 1);
    const ev = JSON.parse(f.body);
    assert.equal(ev.data.job_id, badId);
    assert.equal(ev.data.status, 'failed');
    assert.ok(ev.data.error.code);

    await server.handle.worker.stop();
    try {
      const p = await ingestFile(server.baseUrl, key, dataPath('docs/md/nested.md'), completion('/cancelled'));
      const pid = (p.body as { job_id: string }).job_id;
      await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${pid}`);
      const [c] = await recv.wait('/cancelled', 1);
      assert.equal(JSON.parse(c.body).data.error.code, 'job_cancelled');
      assert.ok(verifyWebhook(secret, c.headers as Record<string, string>, c.body));
    } finally {
      server.handle.worker.start();
    }
  });

  test('after the receiver fails twice, the event is retried with backoff and delivered; each attempt recorded', async () => {
    recv.failures.set('/flaky', 2);
    const r = await ingestFile(server.baseUrl, key, dataPath('docs/md/codeblock.md'), completion('/flaky'));
    await waitForJob(server.baseUrl, key, (r.body as { job_id: string }).job_id);
    const got = await recv.wait('/flaky', 3);
    await sleep(400);
    assert.equal(got.length, 3);
    const id = got[0].headers['webhook-id'] as string;
    assert.ok(got.every((g) => g.headers['webhook-id'] === id), 'one event id across retries');
    assert.ok(got.every((g) => g.body === got[0].body), 'the same body');
    assert.ok(got.every((g) => verifyWebhook(secret, g.headers as Record<string, string>, g.body)));
    const gap1 = got[1].at - got[0].at;
    const gap2 = got[2].at - got[1].at;
    assert.ok(gap1 >= 130 && gap2 >= 270, `backoff gaps ${gap1} ms, ${gap2} ms (base 150 ms, doubling, ±10 %)`);
    const delivery = await server.services.cp.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 3);
    const attempts = await server.services.cp.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt').execute();
    assert.deepEqual(attempts.map((a) => a.status_code), [500, 500, 204]);
    assert.match(attempts[0].error!, /HTTP 500/);
  });

  test('the SSRF guard applies: private targets are refused at ingest', async () => {
    const r = await ingestFile(server.baseUrl, key, dataPath('docs/md/wiki.md'), { 'x-completion': JSON.stringify({ url: 'http://169.254.169.254/latest' }) });
    assert.equal(r.status, 403);
    assert.equal((r.body as { code: string }).code, 'remote_url_forbidden');
  });

  test('a rotated secret signs the next events', async () => {
    const rotated = await api(server.baseUrl, key, 'POST', '/v3/webhooks/secret/rotate');
    const next = (rotated.body as { secret: string }).secret;
    assert.notEqual(next, secret);
    await ingestFile(server.baseUrl, key, dataPath('docs/md/simple-table.md'), completion('/rotated'));
    const [d] = await recv.wait('/rotated', 1);
    assert.ok(verifyWebhook(next, d.headers as Record<string, string>, d.body));
    assert.ok(!verifyWebhook(secret, d.headers as Record<string, string>, d.body));
    secret = next;
  });

  test('an event still pending when the server stops is delivered after a restart', async () => {
    recv.failures.set('/restart', 1000);
    const r = await ingestFile(server.baseUrl, key, dataPath('docs/md/nested.md'), completion('/restart'));
    await waitForJob(server.baseUrl, key, (r.body as { job_id: string }).job_id);
    const before = await recv.wait('/restart', 1);
    await server.handle.close();
    const sent = before.length;
    recv.failures.set('/restart', 0);
    await sleep(500);
    assert.equal(recv.got.get('/restart')!.length, sent, 'nothing is sent while the server is down');
    const cfg = loadConfig({
      DOCSEARCH_DATA_DIR: server.dataDir, DOCSEARCH_WORKER_POLL_MS: '50', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0',
      DOCSEARCH_SECRET: server.services.config.serverSecret, ...env,
    });
    const again = await createApp(cfg, { logger: false });
    try {
      again.startWorkers();
      const got = await recv.wait('/restart', sent + 1);
      const last = got[got.length - 1];
      assert.equal(last.headers['webhook-id'], before[0].headers['webhook-id'], 'the same event, not a new one');
      assert.ok(verifyWebhook(secret, last.headers as Record<string, string>, last.body));
    } finally {
      await again.close();
    }
  });
});

describe('completion webhooks without private hosts allowed', () => {
  test('a target whose name resolves to a private address is refused at connect time, not retried', async () => {
    const recv = await startReceiver();
    const server = await startTestServer({ backend: 'sqlite', env: { DOCSEARCH_WEBHOOK_RETRY_BASE_MS: '100' } });
    try {
      const { apiKey } = await createProject(server);
      const url = `http://vm:${recv.port}/private`; // /etc/hosts: vm -> 127.0.0.1
      const r = await ingestFile(server.baseUrl, apiKey, dataPath('docs/md/wiki.md'), { 'x-completion': JSON.stringify({ url }) });
      assert.equal(r.status, 201, 'a host name passes the literal check');
      await waitForJob(server.baseUrl, apiKey, (r.body as { job_id: string }).job_id);
      let delivery;
      for (let i = 0; i < 200; i++) {
        delivery = await server.services.cp.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirst();
        if (delivery?.status === 'failed') break;
        await sleep(25);
      }
      assert.equal(delivery?.status, 'failed');
      assert.equal(delivery?.attempts, 1);
      assert.match(delivery!.last_error!, /may not be fetched/);
      assert.equal(recv.got.size, 0, 'the receiver was never contacted');
    } finally {
      await server.close();
      await recv.close();
    }
  });
});
