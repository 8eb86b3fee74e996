// The evaluation API from each client against the real server: the SDK (runEvaluation), the CLI
// (`docsearch eval cases.jsonl --variant … [--json]`, progress on stderr, a table on stdout, usage errors),
// and the MCP tool evaluate_search through the service's /mcp endpoint. Each completes an evaluation of
// real XQuAD paragraphs, and each reports the same found shares (same searches, same judge).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DocsearchClient, DocsearchError } from '@docsearch/sdk';
import { startTestServer, createProject, type TestServer } from './helpers/index.ts';
import { ingestXquadCases, type FixtureCase } from './helpers/evaluation-fixture.ts';
import { runCli } from '../packages/cli/test/run-cli.ts';

const VARIANT = { name: 'strict', min_relevance: 0.6 };

describe('evaluation clients: SDK, CLI, MCP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  let cases: FixtureCase[];
  let sdk: DocsearchClient;
  let shares: number[];

  before(async () => {
    server = await startTestServer();
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evaluation-clients-'));
    ({ cases } = await ingestXquadCases(server.baseUrl, key, dir, 3, 4));
    fs.writeFileSync(path.join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
    sdk = new DocsearchClient({ baseUrl: server.v3Url, apiKey: key });
  });
  after(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('SDK: runEvaluation creates, follows and returns the report; errors are typed', async () => {
    const seen: string[] = [];
    const ev = await sdk.runEvaluation({ name: 'sdk', cases, variants: [{}, VARIANT] }, { pollMs: 100, onProgress: (e) => seen.push(e.status) });
    assert.equal(ev.status, 'done');
    assert.ok(seen.length >= 1);
    assert.deepEqual(ev.report!.variants.map((v) => v.name), ['default', 'strict']);
    shares = ev.report!.variants.map((v) => v.found_share);
    assert.equal((await sdk.getEvaluation(ev.evaluation_id)).report!.variants[0].found, ev.report!.variants[0].found);
    assert.equal((await sdk.listEvaluations()).evaluations[0].evaluation_id, ev.evaluation_id);
    const bad = await sdk.createEvaluation({ cases: [{ query: 'x', answers: ['y'] }], variants: [{ target_tokens: 10 }] }).catch((e: unknown) => e);
    assert.ok(bad instanceof DocsearchError);
    assert.equal(bad.status, 400);
    assert.equal(bad.code, 'validation_failed');
    assert.match(bad.message, /body\.variants\.0\.target_tokens/);
    assert.deepEqual(await sdk.deleteEvaluation(ev.evaluation_id), { evaluation_id: ev.evaluation_id, deleted: true });
  });

  test('CLI: docsearch eval prints progress and a table, --json the evaluation; a bad file is a usage error', async () => {
    const env = { DOCSEARCH_URL: server.baseUrl, DOCSEARCH_API_KEY: key };
    const r = await runCli(['eval', 'cases.jsonl', '--variant', '{}', '--variant', JSON.stringify(VARIANT)], env, dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /evaluation done \[#+\] 24\/24/);
    const lines = r.out.split('\n');
    assert.match(lines[0], /^variant +found +tokens mean\/p95 +empty +ms p50\/p95 +R@10 +MRR +nDCG@10 +min_relevance → found$/);
    assert.match(lines[1], new RegExp(`^default +${(shares[0] * 100).toFixed(1)}% \\(\\d+/12\\)`));
    assert.match(lines[2], new RegExp(`^strict +${(shares[1] * 100).toFixed(1)}% \\(\\d+/12\\)`));
    assert.match(r.out, /misses default: /);
    const j = await runCli(['eval', 'cases.jsonl', '--json', '--name', 'cli'], env, dir);
    assert.equal(j.code, 0, j.err);
    const ev = JSON.parse(j.out);
    assert.equal(ev.name, 'cli');
    assert.equal(ev.report.variants[0].found_share, shares[0]);
    fs.writeFileSync(path.join(dir, 'bad.jsonl'), `${JSON.stringify(cases[0])}\nnot json\n`);
    const bad = await runCli(['eval', 'bad.jsonl'], env, dir);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /bad\.jsonl:2: not JSON/);
    const badVariant = await runCli(['eval', 'cases.jsonl', '--variant', '{"min_relevance":7}'], env, dir);
    assert.equal(badVariant.code, 1);
    assert.match(badVariant.err, /body\.variants\.0\.min_relevance/);
  });

  test('MCP: evaluate_search at /mcp returns the table and the recommendation', async () => {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const r = await client.callTool({ name: 'evaluate_search', arguments: { cases, variants: [{}, VARIANT] } });
      const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
      assert.ok(!r.isError, text);
      assert.match(text, new RegExp(`default +${(shares[0] * 100).toFixed(1)}%`));
      assert.match(text, new RegExp(`strict +${(shares[1] * 100).toFixed(1)}%`));
      assert.match(text, /min_relevance → found/);
      const bad = await client.callTool({ name: 'evaluate_search', arguments: { cases: [{ query: 'x' }] } });
      assert.ok(bad.isError);
      assert.match((bad.content as Array<{ text: string }>)[0].text, /validation_failed \(HTTP 400\).*body\.cases\.0/);
    } finally {
      await client.close();
    }
  });
});
