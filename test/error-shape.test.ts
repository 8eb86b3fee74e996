// Every error is in the one body shape {code, message, status, details?} — also those that
// Fastify's router (bad percent-encoding, over-long path parameters) and Node's HTTP parser (invalid
// header bytes, oversized headers, a broken request line) produce before any route runs. Raw sockets,
// because fetch() refuses to send most of these requests.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';

/** Send raw bytes; resolve to the status and parsed JSON body of the (first) response. */
function raw(server: TestServer, bytes: string | Buffer): Promise<{ status: number; body: any; head: string }> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      let body: unknown = rest.join('\r\n\r\n');
      try { body = JSON.parse(body as string); } catch { /* keep text */ }
      resolve({ status, body, head });
    });
    socket.end(bytes);
  });
}

function assertShape(r: { status: number; body: any }, status: number, code: string, what: string): void {
  assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.ok(r.body && typeof r.body === 'object', `${what}: body ${JSON.stringify(r.body)}`);
  assert.deepEqual(Object.keys(r.body).filter((k) => k !== 'details').sort(), ['code', 'message', 'status'], what);
  assert.equal(r.body.code, code, what);
  assert.equal(r.body.status, status, what);
  assert.ok(typeof r.body.message === 'string' && r.body.message.length > 5, what);
}

describe('error shape of framework and client errors', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ backend: 'sqlite', workers: false });
    ({ apiKey: key } = await createProject(server));
  });
  after(async () => server?.close());

  const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${extra}Connection: close\r\n\r\n`;

  test('bad percent-encoding in the path: 400 malformed_request', async () => {
    assertShape(await raw(server, get('/v3/jobs/%zz/status')), 400, 'malformed_request', '%zz');
    assertShape(await raw(server, get('/v3/docsearch/docs/%E0%A4%A')), 400, 'malformed_request', 'truncated escape');
  });

  test('document ids up to 256 characters reach the route; an over-long parameter is 414 uri_too_long', async () => {
    assertShape(await raw(server, get(`/v3/docsearch/docs/${'d'.repeat(256)}`)), 404, 'document_not_found', '256-character id');
    assertShape(await raw(server, get(`/v3/docsearch/docs/${'d'.repeat(200)}`)), 404, 'document_not_found', '200-character id');
    assertShape(await raw(server, get(`/v3/docsearch/docs/${'d'.repeat(1100)}`)), 414, 'uri_too_long', '1,100-character id');
  });

  test('invalid header bytes, a broken request line, oversized headers: Node parser errors in the shape', async () => {
    assertShape(await raw(server, get('/healthz', 'X-Bad: a\x01b\r\n')), 400, 'malformed_request', 'control byte in a header value');
    assertShape(await raw(server, get('/healthz', 'Bad Name: v\r\n')), 400, 'malformed_request', 'space in a header name');
    assertShape(await raw(server, 'NOT AN HTTP REQUEST\r\n\r\n'), 400, 'malformed_request', 'request line');
    assertShape(await raw(server, get('/healthz', `X-Big: ${'a'.repeat(70 * 1024)}\r\n`)), 431, 'headers_too_large', '70 KiB header');
  });

  test('the server keeps answering after the parser errors', async () => {
    const r = await fetch(`${server.baseUrl}/healthz`);
    assert.equal(r.status, 200);
  });
});

describe('NUL characters on PostgreSQL (found by bench/fuzz.ts: 500 on every {id} route)', () => {
  let server: TestServer;
  let key: string;
  before(async () => {
    server = await startTestServer({ backend: 'postgres', workers: false });
    ({ apiKey: key } = await createProject(server));
  });
  after(async () => server?.close());

  test('%00 in a path parameter or query value: 400 malformed_request; NUL in a stored JSON string: 400 validation_failed', async () => {
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;
    for (const p of ['/v3/jobs/%00/status', '/v3/docsearch/docs/a%00b', '/v3/docsearch/ingestBucket/%00', '/v3/docsearch/docs?cursor=%00']) {
      assertShape(await raw(server, get(p)), 400, 'malformed_request', p);
    }
    const res = await fetch(`${server.baseUrl}/v3/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${server.accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'nul\u0000name', product: 'docsearch', protected: false }),
    });
    const body = await res.json();
    assert.ok(res.status === 400 || res.status === 201, JSON.stringify(body));
    if (res.status === 400) assertShape({ status: res.status, body }, 400, 'validation_failed', 'project name');
  });
});
