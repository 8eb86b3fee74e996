// "The main thread only routes": the attacks that froze every tenant — a ReDoS-shaped
// unencrypted_strings_match and a multi-megabyte text file that is one unbroken line — run while
// /healthz is probed every 20 ms; the probes' p99 must stay under 100 ms (DESIGN.md's event-loop budget)
// and the ingest must end (done, or failed with a code). The server's own lag (/readyz) is reported.
// Runs alone: asserts a /healthz p99 under 100 ms.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, waitForJob } from './helpers/api.ts';

/** Probes /healthz back to back (20 ms apart) until stopped; resolves to the latencies in ms. */
function probeHealth(server: TestServer): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(server.baseUrl + '/healthz');
      await res.text();
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { stop: async () => { running = false; await loop; return latencies; } };
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

/** `mb` megabytes of A/C/G/T without a single space or line break (a FASTA sequence line). */
function sequence(mb: number): Buffer {
  const out = Buffer.alloc(mb * 1024 * 1024);
  let x = 13;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = 'ACGT'.charCodeAt((x >> 16) & 3);
  }
  return out;
}

describe('event loop stays free under hostile requests', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ backend: 'sqlite' });
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
  });
  after(async () => server?.close());

  async function ingest(body: Buffer, filename: string, headers: Record<string, string> = {}): Promise<string> {
    const res = await fetch(server.baseUrl + '/v3/docsearch/ingest', {
      method: 'POST', body: body as unknown as BodyInit,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${filename}"`, ...headers },
    });
    const json = await res.json() as { job_id: string };
    assert.equal(res.status, 201, JSON.stringify(json));
    return json.job_id;
  }

  test('a ReDoS-shaped glob against 1,000-character values answers correctly without stalling', async () => {
    for (let i = 0; i < 3; i++) {
      const job = await ingest(Buffer.from(`Document ${i} about glob matching.`), `g${i}.txt`, { 'x-unencrypted-strings': JSON.stringify({ k: 'a'.repeat(1000) + (i === 2 ? 'b' : '') }) });
      assert.equal((await waitForJob(server.baseUrl, key, job)).status, 'done');
    }
    const probe = probeHealth(server);
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 5; i++) {
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'glob matching', format: 'json', min_relevance: 0, unencrypted_strings_match: { k: '*a*a*a*a*a*a*a*ab' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const hits = (r.body as { results: Array<{ title: string }> }).results;
      assert.deepEqual([...new Set(hits.map((h) => h.title))], ['g2.txt']);
    }
    const latencies = await probe.stop();
    assert.ok(latencies.length >= 5);
    assert.ok(p99(latencies) < 100, `/healthz p99 ${p99(latencies).toFixed(1)} ms during the glob searches`);
  });

  test('a 5 MB single-line sequence file is ingested while /healthz p99 stays under 100 ms', { timeout: 300_000 }, async (t) => {
    const body = sequence(5);
    await api(server.baseUrl, undefined, 'GET', '/readyz'); // opens a fresh lag window
    const probe = probeHealth(server);
    const job = await ingest(body, 'sequence.txt');
    const status = await waitForJob(server.baseUrl, key, job, 280_000);
    const latencies = await probe.stop();
    const ready = await api(server.baseUrl, undefined, 'GET', '/readyz');
    const lag = (ready.body as { event_loop_lag: { p99_ms: number; max_ms: number } }).event_loop_lag;
    const diag = `probes ${latencies.length}, /healthz p99 ${p99(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; event-loop lag p99 ${lag.p99_ms} ms, max ${lag.max_ms} ms`;
    t.diagnostic(diag);
    assert.ok(status.status === 'done' || (status.status === 'failed' && status.error?.code), JSON.stringify(status));
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.ok(latencies.length >= 20, diag);
    assert.ok(p99(latencies) < 100, diag);
  });
});
