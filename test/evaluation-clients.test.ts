// The evaluation API from each client against one real server: the SDK (runEvaluation), the CLI
// (`docsearch eval cases.jsonl --variant … [--json]`, progress on stderr, a table on stdout, usage errors),
// the MCP tool evaluate_search through the service's /mcp endpoint, and the console's Evaluations page in
// real headless Chromium (Debian's chromium via playwright-core, as test/console.test.ts): upload a JSONL
// file with two variants, follow the run, read the report — the variant table shows the found shares the
// API reports, the three charts are drawn, the missed cases are listed, a bad file names its line, the
// listed evaluation opens and deletes (a screenshot's path is printed). Each completes an evaluation of
// real XQuAD paragraphs, and each reports the same found shares (same searches, same judge).
// Runs alone: drives Chromium on step timeouts.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DocsearchClient, DocsearchError } from '@docsearch/sdk';
import { startTestServer, createProject, type TestServer } from './helpers/index.ts';
import { api } from './helpers/api.ts';
import { ingestXquadCases, type FixtureCase } from './helpers/evaluation-fixture.ts';
import { runCli } from '../packages/cli/test/run-cli.ts';
import { CHROMIUM_PATH } from '../scripts/preflight.ts';

const VARIANT = { name: 'strict', min_relevance: 0.6 };

describe('evaluation clients: SDK, CLI, MCP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  let cases: FixtureCase[];
  let sdk: DocsearchClient;
  let shares: number[];
  let browser: Browser;

  before(async () => {
    if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`The console part needs Debian's chromium at ${CHROMIUM_PATH}.`);
    server = await startTestServer();
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evaluation-clients-'));
    ({ cases } = await ingestXquadCases(server.baseUrl, key, dir, 6, 3));
    fs.writeFileSync(path.join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'bad.jsonl'), `${JSON.stringify(cases[0])}\n{"query": oops}\n`);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    sdk = new DocsearchClient({ baseUrl: server.v3Url, apiKey: key });
  });
  after(async () => {
    await browser?.close();
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
    assert.match(r.err, /evaluation done \[#+\] 36\/36/);
    const lines = r.out.split('\n');
    assert.match(lines[0], /^variant +found +tokens mean\/p95 +empty +ms p50\/p95 +R@10 +MRR +nDCG@10 +min_relevance → found$/);
    assert.match(lines[1], new RegExp(`^default +${(shares[0] * 100).toFixed(1)}% \\(\\d+/18\\)`));
    assert.match(lines[2], new RegExp(`^strict +${(shares[1] * 100).toFixed(1)}% \\(\\d+/18\\)`));
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

  test('console: upload a JSONL file, follow the run, read the report with its charts', { timeout: 180_000 }, async () => {
      const pageErrors: string[] = [];
    // The page starts from an empty list: the other clients' evaluations are deleted first.
    for (const e of (await sdk.listEvaluations()).evaluations) await sdk.deleteEvaluation(e.evaluation_id);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => { if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) pageErrors.push(`console: ${msg.text()}`); });
    await page.goto(`${server.baseUrl}/console/`);
    await page.fill('#api-key', key);
    await page.click('#api-key-submit');
    await page.waitForSelector('#tabs a.active[data-view="upload"]');
    await page.click('#tabs a[data-view="evaluations"]');
    await page.waitForSelector('#eval-list-box .empty');

    // A file with a broken line names the line; nothing is started.
    await page.setInputFiles('#eval-file', path.join(dir, 'bad.jsonl'));
    await page.click('#eval-start');
    await page.waitForSelector('#eval-status .error');
    assert.match(await page.textContent('#eval-status .error') ?? '', /bad\.jsonl line 2 is not JSON/);

    await page.setInputFiles('#eval-file', path.join(dir, 'cases.jsonl'));
    await page.fill('#eval-name', 'xquad from the console');
    await page.fill('#eval-variants-input', '{}\n{"name": "strict", "min_relevance": 0.7, "target_tokens": 150}');
    await page.click('#eval-start');
    await page.waitForSelector('#eval-variants tbody tr[data-variant="strict"]', { timeout: 120_000 });
    await page.waitForSelector('#eval-list tbody tr');

    const { evaluations } = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/evaluations')).body as { evaluations: Array<{ evaluation_id: string }> };
    const ev = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/evaluations/${evaluations[0].evaluation_id}`)).body as { name: string; report: { variants: Array<{ name: string; found: number; evaluated: number; found_share: number; reliability: unknown[]; recommended_min_relevance: { value: number } }> } };
    assert.equal(ev.name, 'xquad from the console');
    for (const v of ev.report.variants) {
      const row = await page.textContent(`#eval-variants tr[data-variant="${v.name}"]`) ?? '';
      assert.ok(row.includes(`${(v.found_share * 100).toFixed(1)}% (${v.found}/${v.evaluated})`), `${v.name}: ${row}`);
      assert.ok(row.includes(`${v.recommended_min_relevance.value} →`), row);
    }
    // The charts: 4 metrics × 2 variants of bars, one reliability point per bin, the sweep with its circles.
    assert.equal(await page.locator('#chart-variants rect[data-value]').count(), 8);
    const bins = ev.report.variants.reduce((n, v) => n + v.reliability.length, 0);
    assert.equal(await page.locator('#chart-reliability circle').count(), bins);
    assert.equal(await page.locator('#chart-sweep circle.marker').count(), 2);
    assert.equal(await page.locator('details.misses').count(), 2);
    await page.click('details.misses[data-variant="strict"] summary');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-eval-shots-')), 'evaluation-report.png');
    await page.screenshot({ path: file, fullPage: true });
    console.log(`console screenshot: ${file}`);

    // The listed evaluation opens again and deletes.
    await page.click('#eval-list tbody tr button:text("Open")');
    await page.waitForSelector('#eval-variants');
    await page.click('#eval-list tbody tr button:text("Delete")');
    await page.waitForSelector('#eval-list-box .empty');
    assert.deepEqual(pageErrors, []);
  });
});
