// Every rejected ingest gets the spec's status and a stable code, and leaves nothing behind (no job,
// no blob): multipart 403, neither URL nor filename 400, unsupported type 400, empty body 400,
// > limit 413 (without reading the rest), private remote URLs 403, bad unencrypted strings 400.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, ingestStream, waitForJob } from './helpers/api.ts';

describe('ingest validation', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ backend: 'sqlite', env: { DOCSEARCH_MAX_UPLOAD_BYTES: String(1024 * 1024) } });
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
  });
  after(async () => server?.close());

  async function raw(headers: Record<string, string>, body?: Buffer | string) {
    const res = await fetch(server.baseUrl + '/v3/docsearch/ingest', { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body: body as BodyInit | undefined });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  async function jobCount(): Promise<number> {
    const r = await server.handle.services.cp.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  test('each bad request has its status and code and creates no job', async () => {
    const before = await jobCount();
    const cases: Array<[string, Record<string, string>, Buffer | string | undefined, number, string]> = [
      ['multipart', { 'content-type': 'multipart/form-data; boundary=x', 'content-disposition': 'attachment; filename="a.txt"' }, '--x\r\n\r\nhello\r\n--x--', 403, 'multipart_not_accepted'],
      ['neither url nor disposition', { 'content-type': 'application/octet-stream' }, 'hello', 400, 'missing_filename'],
      ['disposition without filename', { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment' }, 'hello', 400, 'missing_filename'],
      ['unsupported extension', { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="x.exe"' }, 'MZ', 400, 'unsupported_media_type'],
      ['empty body', { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.txt"' }, '', 400, 'empty_body'],
      ['too large (declared)', { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.txt"' }, Buffer.alloc(1024 * 1024 + 10, 97), 413, 'payload_too_large'],
      ['loopback remote url', { 'x-remote-url': 'http://127.0.0.1:9/x.pdf' }, undefined, 403, 'remote_url_forbidden'],
      ['metadata remote url', { 'x-remote-url': 'http://169.254.169.254/latest/meta-data' }, undefined, 403, 'remote_url_forbidden'],
      ['non-http remote url', { 'x-remote-url': 'file:///etc/passwd' }, undefined, 400, 'invalid_remote_url'],
      ['bad unencrypted strings', { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.txt"', 'x-unencrypted-strings': '{"bad key":"v"}' }, 'hello', 400, 'unencrypted_strings_invalid'],
      ['unencrypted strings not json', { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.txt"', 'x-unencrypted-strings': 'nope' }, 'hello', 400, 'invalid_header'],
    ];
    for (const [name, headers, body, status, code] of cases) {
      const r = await raw(headers, body);
      assert.equal(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code, name);
      assert.equal(r.body.status, status, name);
      assert.ok(r.body.message.length > 10, name);
    }
    assert.equal(await jobCount(), before);
    const originals = path.join(server.dataDir, 'blobs');
    const files = fs.existsSync(originals) ? fs.readdirSync(originals, { recursive: true }).filter((f) => !fs.statSync(path.join(originals, String(f))).isDirectory()) : [];
    assert.deepEqual(files, []);
  });

  test('a streamed body over the limit without Content-Length is cut off with 413', async () => {
    const res = await ingestStream(server.baseUrl, key, 4 * 1024 * 1024);
    if (res instanceof Error) return; // the server may close the socket before the client finishes sending
    assert.equal(res.status, 413);
  });

  test('an unreadable file is accepted and its job fails with a specific code', async () => {
    const r = await raw({ 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="broken.pdf"' }, 'this is not a pdf at all');
    assert.equal(r.status, 201);
    const s = await waitForJob(server.baseUrl, key, r.body.job_id);
    assert.equal(s.status, 'failed');
    assert.ok(s.code === 415 || s.code === 422, String(s.code));
    assert.ok(s.error?.code && s.error.message);
  });

  test('control and bidi characters are stripped from stored file names', async () => {
    // NUL, an ANSI colour sequence, a bell and U+202E RIGHT-TO-LEFT OVERRIDE, sent RFC 5987-encoded.
    const evil = "attachment; filename*=UTF-8''re%00port%1B%5B31m-red%07%E2%80%AEtxt.md";
    const r = await raw({ 'content-type': 'application/octet-stream', 'content-disposition': evil }, '# Report\n\nQuarterly lichen counts.\n');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.properties.file.filename, 'report-redtxt.md');
    const s = await waitForJob(server.baseUrl, key, r.body.job_id);
    assert.equal(s.status, 'done', JSON.stringify(s));
    const doc = await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${s.doc_id}`);
    assert.equal((doc.body as { filename: string }).filename, 'report-redtxt.md');
    // Nothing printable left: no file name at all.
    const none = await raw({ 'content-type': 'application/octet-stream', 'content-disposition': "attachment; filename*=UTF-8''%E2%80%AE%1B%5B0m" }, 'x');
    assert.equal(none.status, 400);
    assert.equal(none.body.code, 'missing_filename');
  });

  test('hosts are normalised before the URL guard decides: trailing dots, upper case, *.localhost', async () => {
    const before = await jobCount();
    const port = new URL(server.baseUrl).port;
    const hosts = ['localhost.', 'LOCALHOST', 'LocalHost..', 'api.localhost', 'api.localhost.', '127.0.0.1.', 'metadata.google.internal.'];
    const upload = { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.txt"' };
    for (const host of hosts) {
      const url = `http://${host}:${port}/x`;
      for (const [what, headers] of [
        ['X-Completion object', { ...upload, 'x-completion': JSON.stringify({ url }) }],
        ['X-Completion bare URL', { ...upload, 'x-completion': url }],
        ['X-Remote-URL', { 'x-remote-url': `${url}.pdf` }],
      ] as Array<[string, Record<string, string>]>) {
        const r = await raw(headers, headers['x-remote-url'] ? undefined : 'hello');
        assert.equal(r.status, 403, `${what} ${url}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'remote_url_forbidden', `${what} ${url}`);
      }
    }
    assert.equal(await jobCount(), before, 'no job was created');
  });

  test('a raw UTF-8 Content-Disposition filename is read as UTF-8, then cleaned of control and bidi characters', async () => {
    // Header bytes as browsers and curl send them: the UTF-8 encoding of the name, unescaped. A latin1 string
    // makes fetch put exactly those bytes on the wire.
    const wire = (name: string) => `attachment; filename="${Buffer.from(name, 'utf8').toString('latin1')}"`;
    const cases: Array<[string, string]> = [
      ['ev\u202Et.txt', 'evt.txt'],
      ['résumé ünïcode.md', 'résumé ünïcode.md'],
      ['voilà …\u0085.txt', 'voilà ….txt'],
    ];
    for (const [sent, stored] of cases) {
      const r = await raw({ 'content-type': 'application/octet-stream', 'content-disposition': wire(sent) }, 'Lichen counts by quarter.\n');
      assert.equal(r.status, 201, `${JSON.stringify(sent)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.properties.file.filename, stored);
      const s = await api(server.baseUrl, key, 'GET', `/v3/jobs/${r.body.job_id}/status`);
      assert.equal((s.body as { properties: { file: { filename: string } } }).properties.file.filename, stored);
    }
    // Bytes that are not UTF-8 stay Latin-1 (a lone 0xE9 is "é").
    const latin1 = await raw({ 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="caf\u00e9.txt"' }, 'x');
    assert.equal(latin1.status, 201, JSON.stringify(latin1.body));
    assert.equal(latin1.body.properties.file.filename, 'café.txt');
  });

  test('a job of another project is 404', async () => {
    const other = await createProject(server, { product: 'docsearch' });
    const r = await raw({ 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.txt"' }, 'hello world, this is a small text file.');
    assert.equal(r.status, 201);
    const s = await api(server.baseUrl, other.apiKey, 'GET', `/v3/jobs/${r.body.job_id}/status`);
    assert.equal(s.status, 404);
    assert.equal((s.body as { code: string }).code, 'job_not_found');
  });
});
