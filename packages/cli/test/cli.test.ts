// The `docsearch` CLI against the real service: ingest (file, directory, glob; --wait with per-batch
// progress; an encrypted PDF fails with exit 1), search (context, --hits, --json, --doc, --filter), docs
// ls/get/rm, jobs watch, one large file's progress with elapsed time, the exit codes (0 ok, 1 error, 2 usage), and the bin as a real process.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { newProject, PAPER, sharedPdf, startTestServer, type TestServer } from '../../sdk/test/support.ts';
import { runCli } from './run-cli.ts';

const BIN = fileURLToPath(new URL('../bin/docsearch.mjs', import.meta.url));

describe('docsearch CLI', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let dir: string;
  let docId: string;

  before(async () => {
    server = await startTestServer();
    const { apiKey } = await newProject(server);
    env = { DOCSEARCH_URL: server.baseUrl, DOCSEARCH_API_KEY: apiKey };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-cli-'));
    fs.mkdirSync(path.join(dir, 'notes'));
    fs.copyFileSync(PAPER.file, path.join(dir, 'paper.pdf'));
    fs.writeFileSync(path.join(dir, 'notes', 'a.md'), '# Lichens\n\nThe quabbernix lichen grows on north-facing granite.\n');
    fs.writeFileSync(path.join(dir, 'notes', 'b.txt'), 'Moss prefers shade and damp soil near streams.\n');
  });
  after(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('ingest a glob and a directory with --wait: a line per file, progress per batch on stderr', async () => {
    const r = await runCli(['ingest', '*.pdf', 'notes', '--wait', '--batch-size', '2', '--attributes', '{"shelf":"field"}'], env, dir);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split('\n').map((l) => l.split('\t'));
    assert.equal(lines.length, 3, r.out);
    for (const [doc, status] of lines) { assert.equal(status, 'done'); assert.match(doc, /^[0-9a-f-]{36}$/); }
    assert.deepEqual(lines.map((l) => path.basename(l[2])).sort(), ['a.md', 'b.txt', 'paper.pdf']);
    docId = lines.find((l) => l[2].endsWith('paper.pdf'))![0];
    assert.match(r.err, /batch 1\/2 uploading +\[#+\] 2\/2/);
    assert.match(r.err, /batch 2\/2 processing \[#+\] 1\/1/);
  });

  test('one large file with --wait: its progress (pages parsed, chunks embedded) and the elapsed time on stderr', async () => {
    const { apiKey } = await newProject(server); // its own project: the other tests count this one's documents
    const r = await runCli(['ingest', sharedPdf('tracemonkey.pdf'), '--wait'], { ...env, DOCSEARCH_API_KEY: apiKey });
    assert.equal(r.code, 0, r.err);
    const lines = r.err.trim().split('\n');
    const pages = lines.map((l) => /tracemonkey\.pdf: parsing page (\d+) of 14 \d+% \d+\.\d s$/.exec(l)?.[1]).filter(Boolean).map(Number);
    assert.ok(pages.length >= 1 && pages.every((n, i) => i === 0 || n >= pages[i - 1]), r.err);
    assert.ok(lines.some((l) => /tracemonkey\.pdf: (embedding chunk \d+ of \d+|indexing \d+ chunks) \d+% \d+\.\d s$/.test(l)), r.err);
    assert.match(lines.at(-1)!, /processing \[#+\] 1\/1 \d+\.\d s$/);
    assert.match(r.out, /^[0-9a-f-]{36}\tdone\t/);
  });

  test('ingest without --wait prints job ids; jobs watch follows one to done (exit 0)', async () => {
    const r = await runCli(['ingest', path.join(dir, 'notes', 'a.md')], env);
    assert.equal(r.code, 0, r.err);
    const [jobId] = r.out.trim().split('\t');
    const w = await runCli(['jobs', 'watch', jobId], env);
    assert.equal(w.code, 0, w.err);
    assert.match(w.out.trim().split('\n').at(-1)!, /\tdone\t200\t[0-9a-f-]{36}$/);
  });

  test('an encrypted PDF: --wait reports the failure and exits 1; jobs watch on it exits 1', async () => {
    const r = await runCli(['ingest', sharedPdf('password_protected_pw-password.pdf'), '--wait', '--json'], env);
    assert.equal(r.code, 1, r.out + r.err);
    const [outcome] = JSON.parse(r.out);
    assert.equal(outcome.status, 'failed');
    assert.match(outcome.error, /^[a-z_]+: /);
    assert.match(r.err, /1 of 1 failed/);
    const w = await runCli(['jobs', 'watch', outcome.job_id], env);
    assert.equal(w.code, 1);
    assert.match(w.out, /\tfailed\t4\d\d\t/);
  });

  test('search: context by default, --hits with scores, --json, --doc, --filter', async () => {
    const ctx = await runCli(['search', PAPER.query], env);
    assert.equal(ctx.code, 0, ctx.err);
    assert.match(ctx.out, PAPER.expect);
    assert.match(ctx.err, /result\(s\), ~\d+ tokens/);
    const hits = await runCli(['search', '--hits', 'quabbernix lichen'], env);
    assert.equal(hits.code, 0, hits.err);
    assert.match(hits.out, /^1\. .+score \d\.\d{3} \(ann .+, bm25 .+, rrf .+, reranker .+\)/m);
    const json = await runCli(['search', PAPER.query, '--json', '--doc', docId], env);
    assert.equal(json.code, 0, json.err);
    const body = JSON.parse(json.out);
    assert.ok(body.results.length > 0 && body.results.every((h: { doc_id: string }) => h.doc_id === docId));
    const none = await runCli(['search', 'quabbernix lichen', '--json', '--filter', 'shelf eq "elsewhere"'], env);
    assert.equal(JSON.parse(none.out).results.length, 0);
    const some = await runCli(['search', 'quabbernix lichen', '--json', '--filter', 'shelf eq field'], env);
    assert.ok(JSON.parse(some.out).results.length > 0);
  });

  test('docs ls, get, rm; attributes', async () => {
    const ls = await runCli(['docs', 'ls'], env);
    assert.equal(ls.code, 0, ls.err);
    assert.equal(ls.out.trim().split('\n').length, 4, ls.out);
    assert.match(ls.err, /4 document\(s\)/);
    const get = await runCli(['docs', 'get', docId], env);
    assert.equal(JSON.parse(get.out).filename, 'paper.pdf');
    const attrs = await runCli(['attributes'], env);
    assert.match(attrs.out, /^shelf\tstring$/m);
    const rm = await runCli(['docs', 'rm', docId], env);
    assert.equal(rm.code, 0, rm.err);
    assert.match(rm.out, new RegExp(`deleted ${docId}`));
    const gone = await runCli(['docs', 'get', docId], env);
    assert.equal(gone.code, 1);
    assert.match(gone.err, /HTTP 404, [a-z_]+\)/);
  });

  test('exit code 2 for usage errors, with a message', async () => {
    const cases: Array<[string[], Record<string, string | undefined>, RegExp]> = [
      [[], env, /Usage: docsearch/],
      [['frobnicate'], env, /unknown command "frobnicate"/],
      [['search'], env, /search needs a query/],
      [['search', 'x', '--bogus'], env, /Unknown option '--bogus'/],
      [['docs', 'ls'], { DOCSEARCH_URL: server.baseUrl }, /no API key/],
      [['ingest', path.join(dir, 'nope.pdf')], env, /no such file or directory/],
      [['search', 'x', '--max-tokens', '5'], env, /--max-tokens must be an integer in 100..500000/],
      [['buckets', 'create', '--bucket', 'b'], env, /needs --access-key-id/],
    ];
    for (const [argv, e, message] of cases) {
      const r = await runCli(argv, e);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
      assert.match(r.err, message);
    }
    const help = await runCli(['--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.out, /jobs watch/);
  });

  test('the bin runs as a process: exit codes reach the shell', async () => {
    const run = promisify(execFile);
    const ok = await run(process.execPath, [BIN, 'docs', 'ls', '--json'], { env: { ...process.env, ...env } });
    assert.equal(JSON.parse(ok.stdout).total_documents, 3);
    const failed = await run(process.execPath, [BIN, 'docs', 'get', 'missing'], { env: { ...process.env, ...env } }).catch((e) => e);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^docsearch: .+\(HTTP 404/);
    const usage = await run(process.execPath, [BIN, 'search'], { env: { ...process.env, ...env } }).catch((e) => e);
    assert.equal(usage.code, 2);
  });
});
