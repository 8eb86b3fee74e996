// The SDK's retries against the real service behind a loopback proxy that answers the first requests
// itself with 503/429 (+ Retry-After) or 502, as a load balancer in front of docsearch would: the client
// waits as told and then gets the service's real answer; without retries left it throws the error.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DocsearchClient, DocsearchError } from '../src/index.ts';
import { newProject, startTestServer, type TestServer } from './support.ts';

/** Planned answers for the next requests; an empty plan forwards to the service. */
interface Refusal { status: number; retryAfter?: string }

function startProxy(target: string): Promise<{ url: string; plan: Refusal[]; seen: number[]; close(): Promise<void> }> {
  const plan: Refusal[] = [];
  const seen: number[] = [];
  const server = http.createServer((req, res) => {
    seen.push(Date.now());
    const refusal = plan.shift();
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'application/json', ...(refusal.retryAfter ? { 'retry-after': refusal.retryAfter } : {}) });
      res.end(JSON.stringify({ code: refusal.status === 429 ? 'rate_limited' : 'backend_unavailable', message: 'proxy says wait', status: refusal.status }));
      return;
    }
    const upstream = http.request(target + req.url, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => { res.writeHead(502).end(); });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    resolve({ url: `http://127.0.0.1:${port}`, plan, seen, close: () => new Promise((r) => server.close(() => r())) });
  }));
}

describe('@docsearch/sdk retries', () => {
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let apiKey: string;

  before(async () => {
    server = await startTestServer({ workers: false });
    ({ apiKey } = await newProject(server));
    proxy = await startProxy(server.baseUrl);
  });
  after(async () => { await proxy?.close(); await server?.close(); });

  test('503 with Retry-After: 1 is waited out, then the real answer comes back', async () => {
    const client = new DocsearchClient({ baseUrl: proxy.url, apiKey });
    proxy.plan.push({ status: 503, retryAfter: '1' });
    proxy.seen.length = 0;
    const list = await client.listDocuments();
    assert.equal(list.total_documents, 0);
    assert.equal(proxy.seen.length, 2);
    assert.ok(proxy.seen[1] - proxy.seen[0] >= 950, `waited ${proxy.seen[1] - proxy.seen[0]} ms`);
  });

  test('429 with an HTTP-date and 502 without Retry-After are retried (POST search included)', async () => {
    const client = new DocsearchClient({ baseUrl: proxy.url, apiKey, retry: { baseDelayMs: 20 } });
    proxy.plan.push({ status: 429, retryAfter: new Date(Date.now() + 1500).toUTCString() }, { status: 502 });
    proxy.seen.length = 0;
    const res = await client.search({ query: 'anything', format: 'json' });
    assert.deepEqual(res.results, []);
    assert.equal(proxy.seen.length, 3);
    assert.ok(proxy.seen[1] - proxy.seen[0] >= 400, 'the HTTP-date was honoured (second resolution)');
  });

  test('when retries run out the last refusal is thrown as DocsearchError', async () => {
    const client = new DocsearchClient({ baseUrl: proxy.url, apiKey, retry: { maxRetries: 2, baseDelayMs: 10 } });
    proxy.plan.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    proxy.seen.length = 0;
    const err = await client.listAttributes().catch((e: unknown) => e);
    assert.ok(err instanceof DocsearchError, String(err));
    assert.equal(err.status, 503);
    assert.equal(err.code, 'backend_unavailable');
    assert.equal(proxy.seen.length, 3, 'one attempt and two retries');
    proxy.plan.length = 0;
  });

  test('a 4xx is not retried', async () => {
    const client = new DocsearchClient({ baseUrl: proxy.url, apiKey });
    proxy.seen.length = 0;
    const err = await client.getDocument('missing').catch((e: unknown) => e);
    assert.ok(err instanceof DocsearchError && err.status === 404);
    assert.equal(proxy.seen.length, 1);
  });
});
