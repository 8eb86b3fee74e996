// The console's project, jobs, attribute and projects views in real headless Chromium (Debian's chromium
// driven by playwright-core, as test/console.test.ts) against the real service: a new account creates its
// first project at sign-in; the header names the project a pasted key belongs to; files uploaded with typed attributes carry them; after a reload the
// Jobs tab lists the finished jobs and a running one (a remote URL held open) and follows it to done (an
// upload whose status stream is refused for the project's stream cap is followed by polling); the
// search playground filters on the attributes and shows the service's error for a bad filter; the
// Projects tab asks a project-key session for an account key, keeps it in memory only, creates a project
// whose key is shown once and opens it. Screenshots go to CONSOLE_SHOTS_DIR (else a temp dir), printed.
// Runs alone: drives Chromium on step timeouts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, createProject, request, type TestServer } from './helpers/index.ts';
import { startFileServer } from './jobs-helpers.ts';
import { CHROMIUM_PATH } from '../scripts/preflight.ts';
import { signInAndChoose } from './helpers/console-login.ts';
import { OPERATORS as SERVICE_OPERATORS, ALL_OPERATORS as SERVICE_ALL } from '../src/attributes/types.ts';
import { readJobProgress as sdkProgress } from '../packages/sdk/src/job-progress.ts';
// @ts-expect-error plain ES modules of the console, without type declarations
import { OPERATORS, ALL_OPERATORS, TYPES } from '../console/js/attributes.js';
// @ts-expect-error as above
import { readJobProgress } from '../console/js/job-progress.js';

const shotsDir = process.env.CONSOLE_SHOTS_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-console-views-'));
const SESSION = 'docsearch.console.session';

let server: TestServer;
let files: Awaited<ReturnType<typeof startFileServer>>;
let project: Awaited<ReturnType<typeof createProject>>;
let browser: Browser;
const pageErrors: string[] = [];

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(shotsDir, `console-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`console screenshot: ${file}`);
}

async function openConsole(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) pageErrors.push(`console: ${msg.text()}`); });
  await page.goto(`${server.baseUrl}/console/`);
  return page;
}

/** Drop a text file on the upload zone (a DataTransfer carrying its bytes, as a browser's drop does). */
async function drop(page: Page, name: string, text: string): Promise<void> {
  await page.evaluate(([n, t]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], n, { type: 'text/markdown' }));
    document.getElementById('dropzone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, text]);
}

/** Set the attribute editor's rows to `rows` (name, type, value). */
async function setAttributes(page: Page, rows: Array<[string, string, string]>): Promise<void> {
  while (await page.locator('#attr-rows tr').count() < rows.length) await page.click('#attr-add');
  for (const [i, [name, type, value]] of rows.entries()) {
    const tr = page.locator('#attr-rows tr').nth(i);
    await tr.locator('.attr-name').fill(name);
    await tr.locator('.attr-type').selectOption(type);
    await tr.locator('.attr-value').fill(value);
  }
}

/** Search in JSON format with `filters` as the playground's clause rows; returns the hits' doc ids or the error text. */
async function filteredSearch(page: Page, filters: Array<[string, string, string]>): Promise<{ docs: string[]; error?: string }> {
  await page.evaluate(() => document.getElementById('filter-rows')!.replaceChildren());
  for (const [i, [attr, op, value]] of filters.entries()) {
    await page.click('#filter-add');
    const tr = page.locator('#filter-rows tr').nth(i);
    await tr.locator('.filter-attr').fill(attr);
    await tr.locator('.filter-op').selectOption(op);
    await tr.locator('.filter-value').fill(value);
  }
  await page.evaluate(() => document.getElementById('search-out')!.replaceChildren());
  await page.click('#search-submit');
  await page.waitForSelector('#hits, #search-out .empty, #search-out .error');
  if (await page.locator('#search-out .error').count()) return { docs: [], error: await page.textContent('#search-out .error') ?? '' };
  return { docs: await page.locator('#hits tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.docId!)) };
}

before(async () => {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`The console test needs Debian's chromium at ${CHROMIUM_PATH}: apt-get install -y --no-install-recommends chromium.`);
  files = await startFileServer(Buffer.from('# Ledger of the lighthouse\n\nThe keeper wrote down every ship that passed the lighthouse at night.\n'));
  // One status stream per project: an upload whose stream is refused (429) must still be followed.
  server = await startTestServer({ env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_MAX_STREAMS_PER_PROJECT: '1' } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await files?.close();
});

test('the console\'s operator table is the service\'s, its progress reading the SDK\'s', () => {
  // The console is static files that cannot import the service's or the SDK's TypeScript: these are copies.
  assert.deepEqual(OPERATORS, SERVICE_OPERATORS);
  assert.deepEqual(ALL_OPERATORS, SERVICE_ALL);
  assert.deepEqual([...TYPES].sort(), Object.keys(SERVICE_OPERATORS).sort());
  const events = [
    { status: 'pending', is_terminal: false }, { status: 'processing', is_terminal: false },
    { status: 'processing', is_terminal: false, progress: { stage: 'parsing' } },
    { status: 'processing', is_terminal: false, progress: { stage: 'parsing', pages_total: 14, pages_parsed: 5 } },
    { status: 'processing', is_terminal: false, progress: { stage: 'embedding', pages_total: 14, pages_parsed: 14, chunks_total: 80, chunks_embedded: 64 } },
    { status: 'processing', is_terminal: false, progress: { stage: 'indexing', chunks_total: 80, chunks_embedded: 80 } },
    { status: 'done', is_terminal: true }, { status: 'failed', is_terminal: true, error: { code: 'x', message: 'y' } },
  ] as const;
  for (const ev of events) assert.equal(readJobProgress(ev).percent, sdkProgress(ev as never).percent, JSON.stringify(ev));
});

test('a new account creates its first project at sign-in; its key is shown once', { timeout: 60_000 }, async () => {
  const page = await openConsole();
  await page.fill('#login-email', server.email);
  await page.fill('#login-password', server.password);
  await page.click('#login-submit');
  await page.fill('#first-project-name', 'Field notes');
  await page.click('#first-project-create');
  await page.waitForSelector('#first-project-open');
  const apiKey = await page.inputValue('.key-once');
  assert.match(apiKey, /^svc_prod_ds_/);
  await shot(page, 'first-project');
  await page.click('#first-project-open');
  await page.waitForSelector('#tabs a.active[data-view="upload"]');
  assert.equal(await page.textContent('#who-project'), 'Field notes');
  const own = await request(server, 'GET', '/v3/project', { token: apiKey });
  assert.equal(own.body.name, 'Field notes');
  assert.equal(await page.evaluate((k) => JSON.parse(sessionStorage.getItem(k)!).projectId, SESSION), own.body.id);
  assert.ok(!(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).includes(apiKey), 'the key is not kept');
  project = { projectId: own.body.id, apiKey, namespace: own.body.namespace, name: own.body.name };
  await page.close();
});

test('project name, attributes at upload, jobs after a reload, attribute filters, project creation', { timeout: 180_000 }, async () => {
  const page = await openConsole();
  await page.fill('#api-key', project.apiKey);
  await page.click('#api-key-submit');
  await page.waitForSelector('#tabs a.active[data-view="upload"]');
  assert.equal(await page.textContent('#who-project'), 'Field notes', 'the header names the project, not its namespace');
  await page.setViewportSize({ width: 1024, height: 700 });
  await shot(page, 'header-1024');
  await page.setViewportSize({ width: 1280, height: 860 });

  // Attributes at upload: an invalid name is refused before anything is sent.
  await setAttributes(page, [['Bad-Name', 'auto', '1']]);
  await drop(page, 'never.md', '# never sent');
  await page.waitForSelector('#attr-status .error');
  assert.match(await page.textContent('#attr-status .error') ?? '', /attribute_invalid_name/);
  assert.equal(await page.locator('#jobs tr').count(), 0);

  await setAttributes(page, [['year', 'auto', '2021'], ['topics', '[]string', 'birds, wetlands'], ['observed', 'datetime', '2024-05-01T06:30:00Z']]);
  await drop(page, 'herons.md', '# Herons of the marsh\n\nGrey herons nest in the reed beds and hunt fish at dawn along the marsh.\n');
  await page.waitForSelector('#jobs tr[data-filename="herons.md"]');
  await setAttributes(page, [['year', 'int', '2015'], ['topics', '[]string', 'mammals'], ['observed', 'datetime', '']]);
  await drop(page, 'otters.md', '# Otters of the river\n\nOtters hunt fish along the river banks at dawn and rest in holts.\n');
  // A value that does not fit its type: the service's error on the row, no job.
  await setAttributes(page, [['year', 'int', 'recent'], ['topics', '[]string', ''], ['observed', 'datetime', '']]);
  await drop(page, 'wrong.md', '# wrong');
  for (const name of ['herons.md', 'otters.md']) {
    await page.waitForSelector(`#jobs tr[data-filename="${name}"]:is([data-status="done"], [data-status="failed"])`, { timeout: 60_000 });
    assert.equal(await page.getAttribute(`#jobs tr[data-filename="${name}"]`, 'data-status'), 'done', await page.textContent(`#jobs tr[data-filename="${name}"]`) ?? '');
    assert.equal(await page.getAttribute(`#jobs tr[data-filename="${name}"] .job-progress`, 'data-percent'), '100');
  }
  await page.waitForSelector('#jobs tr[data-filename="wrong.md"][data-status="failed"] .error');
  assert.match(await page.textContent('#jobs tr[data-filename="wrong.md"] .error') ?? '', /^attribute_invalid_value .*year.*\(HTTP 400\)/);
  assert.deepEqual(await page.locator('#jobs tr[data-filename="herons.md"] .attr-chip').allTextContents(),
    ['year=2021', 'topics=["birds","wetlands"]', 'observed="2024-05-01T06:30:00Z"']);
  await shot(page, 'upload-attributes');
  const attrs = await request(server, 'GET', '/v3/docsearch/attributes', { token: project.apiKey });
  assert.deepEqual(Object.fromEntries(attrs.body.attributes.map((a: { name: string; type: string }) => [a.name, a.type])),
    { year: 'int', topics: '[]string', observed: 'datetime' });
  const { body: list } = await request(server, 'GET', '/v3/docsearch/docs', { token: project.apiKey });
  const docOf = (filename: string) => list.documents.find((d: { filename: string }) => d.filename === filename).doc_id as string;
  const herons = docOf('herons.md');
  const otters = docOf('otters.md');

  // A job still running when the page is reloaded: a remote URL whose server holds its answer.
  files.hold();
  const remote = await request(server, 'POST', '/v3/docsearch/ingest', { token: project.apiKey, headers: { 'x-remote-url': files.url('ledger.md') } });
  assert.equal(remote.status, 201, JSON.stringify(remote.body));
  const running = remote.body.job_id as string;
  // This stream of the held job takes the project's one stream: the next upload's stream gets 429 and the
  // Upload tab reads its job's status instead.
  const held = new AbortController();
  const stream = await fetch(`${server.v3Url}/status/v1/jobs/${running}`, { headers: { authorization: `Bearer ${project.apiKey}` }, signal: held.signal });
  assert.equal(stream.status, 200);
  await setAttributes(page, [['year', 'int', '2019'], ['topics', '[]string', 'birds'], ['observed', 'datetime', '']]);
  await drop(page, 'plovers.md', '# Plovers of the shore\n\nPlovers run along the shore at low tide.\n');
  await page.waitForSelector('#jobs tr[data-filename="plovers.md"]:is([data-status="done"], [data-status="failed"], [data-status="unknown"])', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#jobs tr[data-filename="plovers.md"]', 'data-status'), 'done', await page.textContent('#jobs tr[data-filename="plovers.md"]') ?? '');
  held.abort();
  await stream.body?.cancel().catch(() => {});
  await page.reload();
  await page.waitForSelector('#tabs a.active[data-view="upload"]');
  assert.equal(await page.locator('#jobs tr').count(), 0, 'the upload rows lived in the page');
  assert.equal(await page.textContent('#who-project'), 'Field notes');
  await page.click('#tabs a[data-view="jobs"]');
  await page.waitForSelector(`#job-list tr[data-job-id="${running}"]`);
  for (const name of ['herons.md', 'otters.md', 'plovers.md']) {
    assert.equal(await page.getAttribute(`#job-list tr[data-filename="${name}"]`, 'data-status'), 'done');
    assert.match(await page.textContent(`#job-list tr[data-filename="${name}"] .job-progress`) ?? '', /done · \d+ chunks?/);
  }
  assert.match(await page.getAttribute(`#job-list tr[data-job-id="${running}"]`, 'data-status') ?? '', /^(pending|processing)$/);
  assert.equal(await page.locator(`#job-list tr[data-job-id="${running}"] button[data-action="cancel"]`).count(), 1);
  const order = await page.locator('#job-list tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.filename));
  assert.deepEqual(order, ['plovers.md', 'ledger.md', 'otters.md', 'herons.md'], 'newest first; the refused upload made no job');
  await shot(page, 'jobs-after-reload');
  files.release();
  await page.waitForSelector(`#job-list tr[data-job-id="${running}"][data-status="done"]`, { timeout: 60_000 });
  assert.match(await page.textContent(`#job-list tr[data-job-id="${running}"] .job-detail`) ?? '', /doc \S+/);
  await page.selectOption('#job-filter', 'failed');
  await page.waitForSelector('#view-jobs .empty');
  await page.selectOption('#job-filter', '');
  await page.waitForSelector(`#job-list tr[data-job-id="${running}"]`);
  await shot(page, 'jobs-followed');

  // Attribute filters in the playground.
  await page.click('#tabs a[data-view="search"]');
  await page.fill('#query', 'which animals hunt fish at dawn');
  await page.selectOption('#format', 'json');
  await page.fill('#min_relevance', '0');
  const all = await filteredSearch(page, []);
  assert.ok(all.docs.includes(herons) && all.docs.includes(otters) && all.docs.includes(running), JSON.stringify(all));
  const recentAll = await filteredSearch(page, [['year', 'gte', '2019']]);
  assert.equal(recentAll.docs.length, 2, `herons and plovers: ${JSON.stringify(recentAll)}`);
  const recent = await filteredSearch(page, [['year', 'gte', '2020']]);
  assert.deepEqual(recent.docs, [herons], JSON.stringify(recent));
  const mammals = await filteredSearch(page, [['topics', 'contains', 'mammals'], ['year', 'in', '2015, 2016']]);
  assert.deepEqual(mammals.docs, [otters], JSON.stringify(mammals));
  const dated = await filteredSearch(page, [['observed', 'lt', '2025-01-01T00:00:00Z']]);
  assert.deepEqual(dated.docs, [herons], JSON.stringify(dated));
  assert.deepEqual(JSON.parse(await page.textContent('#search-form-request, .search-form pre.request') ?? '{}').attribute_filters,
    [{ attr: 'observed', op: 'lt', value: '2025-01-01T00:00:00Z' }], 'the request body shows the clauses as sent');
  await filteredSearch(page, [['year', 'gte', '2020']]);
  await shot(page, 'search-filter');
  const bad = await filteredSearch(page, [['year', 'gt', 'recent']]);
  assert.match(bad.error ?? '', /^attribute_invalid_value .*year.*\(HTTP 400\)/, JSON.stringify(bad));
  await shot(page, 'search-filter-error');

  // Projects: a project-key session is asked for an account key; a wrong one is the service's 401 and
  // does not sign the console out.
  await page.click('#tabs a[data-view="projects"]');
  await page.waitForSelector('#account-key-card:not([hidden])');
  assert.equal(await page.locator('#project-form fieldset[disabled]').count(), 1);
  await page.fill('#account-key', 'svc_acc_' + 'x'.repeat(43));
  await page.click('#account-key-use');
  await page.waitForSelector('#view-projects .error');
  assert.match(await page.textContent('#view-projects .error') ?? '', /HTTP 401/);
  assert.ok(await page.isVisible('#tabs'), 'still signed in');
  await page.fill('#account-key', server.accountKey);
  await page.click('#account-key-use');
  await page.waitForSelector(`#project-list tr[data-project-id="${project.projectId}"]`);
  await page.fill('#project-name', 'Created in the console');
  await page.click('#project-create');
  await page.waitForSelector('#project-created');
  const key = await page.inputValue('#created-key');
  assert.match(key, /^svc_prod_ds_/);
  await page.waitForSelector(`#project-list tr[data-project-id="${await page.getAttribute('#project-created', 'data-project-id')}"]`);
  const storage = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  assert.ok(!storage.includes(server.accountKey) && !storage.includes(key), 'neither the account key nor the new key is stored');
  await shot(page, 'projects-created');
  const own = await request(server, 'GET', '/v3/project', { token: key });
  assert.equal(own.body.name, 'Created in the console');
  // A name already taken: the service's error.
  await page.fill('#project-name', 'Created in the console');
  await page.click('#project-create');
  await page.waitForSelector('#view-projects .error');
  assert.match(await page.textContent('#view-projects .error') ?? '', /\(HTTP 409\)/);
  // Open the new project: the console switches to its key; the account key is gone with the reload.
  await page.fill('#project-name', 'Second from the console');
  await page.click('#project-create');
  await page.waitForSelector('#project-open');
  const second = await page.inputValue('#created-key');
  await page.click('#project-open');
  await page.waitForFunction(() => document.getElementById('who-project')?.textContent === 'Second from the console');
  assert.equal(await page.evaluate((k) => JSON.parse(sessionStorage.getItem(k)!).token, SESSION), second);
  await page.click('#tabs a[data-view="projects"]');
  await page.waitForSelector('#account-key-card:not([hidden])');
  assert.equal(await page.locator('#project-form fieldset[disabled]').count(), 1, 'the account key did not survive the reload');
  await page.close();
  assert.deepEqual(pageErrors, []);
});

test('a login session lists and creates projects without an extra key', { timeout: 60_000 }, async () => {
  const page = await openConsole();
  await signInAndChoose(page, server.email, server.password, project.projectId);
  assert.equal(await page.textContent('#who-project'), 'Field notes');
  await page.click('#tabs a[data-view="projects"]');
  await page.waitForSelector(`#project-list tr[data-project-id="${project.projectId}"]`);
  assert.ok(await page.isHidden('#account-key-card'));
  await page.fill('#project-name', 'From a login session');
  await page.click('#project-create');
  await page.waitForSelector('#project-open');
  await page.click('#project-open');
  await page.waitForFunction(() => document.getElementById('who-project')?.textContent === 'From a login session');
  const session = await page.evaluate((k) => JSON.parse(sessionStorage.getItem(k)!), SESSION);
  assert.equal(session.kind, 'login', 'still the login session, now on the new project');
  const { body } = await request(server, 'GET', '/v3/projects', { token: server.accountKey });
  assert.equal(session.projectId, body.projects.find((p: { name: string }) => p.name === 'From a login session').id);
  await page.click('#tabs a[data-view="jobs"]');
  await page.waitForSelector('#view-jobs .empty');
  await shot(page, 'jobs-empty-project');
  await page.close();
  assert.deepEqual(pageErrors, []);
});
