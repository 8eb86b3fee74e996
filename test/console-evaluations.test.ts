// The console's Evaluations page in real headless Chromium (Debian's chromium via playwright-core, as
// test/console.test.ts): sign in with a project key, upload a JSONL file of XQuAD cases with two variants,
// watch the run, and read the report — the variant table shows the found shares the API reports, the
// three charts are drawn (bars per variant, reliability points, sweep with the recommendation circled),
// the missed cases are listed; a bad file shows its line; the listed evaluation opens and deletes.
// Screenshots go to a temp dir whose paths are printed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, createProject, type TestServer } from './helpers/index.ts';
import { api } from './helpers/api.ts';
import { ingestXquadCases, type FixtureCase } from './helpers/evaluation-fixture.ts';
import { CHROMIUM_PATH } from '../scripts/preflight.ts';

const shotsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-console-eval-shots-'));
let server: TestServer;
let key: string;
let dir: string;
let cases: FixtureCase[];
let browser: Browser;
const pageErrors: string[] = [];

before(async () => {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`The console test needs Debian's chromium at ${CHROMIUM_PATH}.`);
  server = await startTestServer();
  ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-eval-'));
  ({ cases } = await ingestXquadCases(server.baseUrl, key, dir, 8, 3));
  fs.writeFileSync(path.join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), `${JSON.stringify(cases[0])}\n{"query": oops}\n`);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('upload a JSONL file, follow the run, read the report with its charts', { timeout: 180_000 }, async () => {
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
  const file = path.join(shotsDir, 'evaluation-report.png');
  await page.screenshot({ path: file, fullPage: true });
  console.log(`console screenshot: ${file}`);

  // The listed evaluation opens again and deletes.
  await page.click('#eval-list tbody tr button:text("Open")');
  await page.waitForSelector('#eval-variants');
  await page.click('#eval-list tbody tr button:text("Delete")');
  await page.waitForSelector('#eval-list-box .empty');
  assert.deepEqual(pageErrors, []);
});
