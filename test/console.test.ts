// The web console end to end in real headless Chromium: Debian's `chromium` driven by
// playwright-core (never a downloaded browser). Against the real service it signs in with a pasted
// project key, uploads tracemonkey.pdf through the file input and wiki.md by drag-and-drop, watches both
// jobs finish on their live status streams (and a password-protected PDF fail with its error code),
// searches (prompt_ready context and JSON hits with scores), shows an API error's code, lists and deletes
// a document, follows a real bucket task (local S3) to its end with its failures, and signs in with the
// account login. Screenshots go to a temp dir whose paths are printed, for people to look at.
// Runs alone: drives Chromium on step timeouts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, createProject, request, repoRoot, type TestServer } from './helpers/index.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { CHROMIUM_PATH } from '../scripts/preflight.ts';
import { signInAndChoose } from './helpers/console-login.ts';

const DOCS = path.join(repoRoot, '../shared/data/docs');
const PDF = path.join(DOCS, 'pdf/tracemonkey.pdf');
const MD = path.join(DOCS, 'md/wiki.md');
const LOCKED = path.join(DOCS, 'pdf/password_protected_pw-password.pdf');
const shotsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-console-shots-'));

let server: TestServer;
let s3: S3TestServer;
let project: Awaited<ReturnType<typeof createProject>>;
let browser: Browser;
const pageErrors: string[] = [];

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(shotsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`console screenshot: ${file}`);
}

async function openConsole(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) pageErrors.push(`console: ${msg.text()}`); });
  const res = await page.goto(`${server.baseUrl}/console`);
  assert.equal(res?.status(), 200);
  assert.equal(new URL(page.url()).pathname, '/console/', '/console redirects to /console/');
  return page;
}

before(async () => {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`The console test needs Debian's chromium at ${CHROMIUM_PATH}: apt-get install -y --no-install-recommends chromium (npm test's preflight installs it when run as root).`);
  }
  s3 = await startS3Server();
  server = await startTestServer({ env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
  project = await createProject(server);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await s3?.close();
});

test('static files: index, scripts and a strict Content-Security-Policy; /console redirects', async () => {
  const redirect = await fetch(`${server.baseUrl}/console`, { redirect: 'manual' });
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get('location'), '/console/');
  const index = await fetch(`${server.baseUrl}/console/`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /text\/html/);
  assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const js = await fetch(`${server.baseUrl}/console/js/api.js`);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  assert.equal((await fetch(`${server.baseUrl}/console/nope.js`)).status, 404);
  const openapi = await request(server, 'GET', '/v3/openapi.json');
  if (openapi.status === 200) assert.ok(!Object.keys(openapi.body.paths).some((p) => p.startsWith('/console')), 'console routes stay out of the API document');
});

test('paste key, upload by file input and drag-and-drop, watch jobs, search, delete', { timeout: 240_000 }, async () => {
  const page = await openConsole();
  await page.waitForSelector('#api-key');
  await shot(page, '1-sign-in');

  // A wrong key shows the API's error code and message.
  await page.fill('#api-key', 'svc_prod_ds_wrong');
  await page.click('#api-key-submit');
  await page.waitForSelector('.error code');
  assert.match(await page.textContent('.error code') ?? '', /^[a-z_]+$/);

  await page.fill('#api-key', project.apiKey);
  await page.click('#api-key-submit');
  await page.waitForSelector('#tabs a.active[data-view="upload"]');
  assert.equal(await page.evaluate(() => JSON.parse(sessionStorage.getItem('docsearch.console.session')!).kind), 'project_key');

  await page.setInputFiles('#file-input', [PDF, LOCKED]);
  // Drag-and-drop: a DataTransfer carrying the real file's bytes, dropped on the zone.
  const md = fs.readFileSync(MD).toString('base64');
  await page.evaluate(([b64]) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], 'wiki.md', { type: 'text/markdown' }));
    document.getElementById('dropzone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [md]);

  for (const name of ['tracemonkey.pdf', 'wiki.md']) {
    const row = page.locator(`#jobs tr[data-filename="${name}"]`);
    await page.waitForSelector(`#jobs tr[data-filename="${name}"]:is([data-status="done"], [data-status="failed"], [data-status="unknown"])`, { timeout: 180_000 });
    assert.equal(await row.getAttribute('data-status'), 'done', `${name}: ${await row.textContent()}`);
    assert.match(await row.locator('.job-detail').textContent() ?? '', /doc \S+/);
  }
  // The locked PDF fails; its row shows the job error's code and message from the stream.
  const locked = page.locator('#jobs tr[data-filename="password_protected_pw-password.pdf"]');
  await page.waitForSelector('#jobs tr[data-filename="password_protected_pw-password.pdf"][data-status="failed"] .error code', { timeout: 60_000 });
  assert.match(await locked.locator('.error').textContent() ?? '', /^encrypted_document \S/, 'the stream\'s error_code, not a generic code');
  await shot(page, '2-upload-done');

  const { body: list } = await request(server, 'GET', '/v3/docsearch/docs', { token: project.apiKey });
  const tm = list.documents.find((d: { filename: string }) => d.filename === 'tracemonkey.pdf');
  const wiki = list.documents.find((d: { filename: string }) => d.filename === 'wiki.md');
  assert.ok(tm && wiki, JSON.stringify(list));

  await page.click('#tabs a[data-view="docs"]');
  await page.waitForSelector(`#docs tr[data-doc-id="${tm.doc_id}"]`);
  const docRow = await page.textContent(`#docs tr[data-doc-id="${tm.doc_id}"]`) ?? '';
  assert.ok(docRow.includes('tracemonkey.pdf') && docRow.includes(String(tm.pages)) && docRow.includes(String(tm.chunk_count)), docRow);
  await shot(page, '3-documents');

  await page.click('#tabs a[data-view="search"]');
  await page.fill('#query', 'How does TraceMonkey record and compile hot loops into type-specialized traces?');
  await page.click('#search-submit');
  await page.waitForSelector('#context, #search-out .error');
  const context = await page.textContent('#context') ?? '';
  assert.ok(context.includes(tm.doc_id), `prompt-ready context names the PDF: ${context.slice(0, 500)}`);
  assert.match(context, /trace/i);
  await shot(page, '4-search-prompt-ready');

  await page.selectOption('#format', 'json');
  await page.fill('#min_relevance', '0.1');
  await page.selectOption('#retrieval_tier', 'standard');
  await page.click('#search-submit');
  await page.waitForSelector('#hits tbody tr, #search-out .error');
  const first = page.locator('#hits tbody tr').first();
  assert.equal(await first.getAttribute('data-doc-id'), tm.doc_id);
  const cells = await first.locator('td').allTextContents();
  assert.match(cells[3], /^\d\.\d{3}$/, `score cell: ${cells.join(' | ')}`);
  assert.ok(cells.slice(4, 8).some((c) => /^\d\.\d{3}$/.test(c)), `stage scores: ${cells.join(' | ')}`);
  await shot(page, '5-search-json');

  // An invalid request shows the error body's code and message.
  await page.fill('#min_relevance', '2');
  await page.evaluate(() => (document.getElementById('min_relevance') as HTMLInputElement).removeAttribute('max'));
  await page.click('#search-submit');
  await page.waitForSelector('#search-out .error');
  assert.match(await page.textContent('#search-out .error') ?? '', /[a-z_]+ .*\(HTTP 400\)/);

  // Delete wiki.md: two clicks (arm, confirm); it leaves the list and the namespace.
  await page.click('#tabs a[data-view="docs"]');
  const del = page.locator(`#docs tr[data-doc-id="${wiki.doc_id}"] button[data-action="delete"]`);
  await del.click();
  await del.click();
  await page.waitForSelector(`#docs tr[data-doc-id="${wiki.doc_id}"]`, { state: 'detached' });
  assert.equal((await request(server, 'GET', `/v3/docsearch/docs/${wiki.doc_id}`, { token: project.apiKey })).status, 404);

  // A bucket task id that does not exist: the card shows the API's 404 code.
  await page.click('#tabs a[data-view="buckets"]');
  await page.fill('#task-id', 'no-such-task');
  await page.click('#task-watch');
  await page.waitForSelector('article[data-task-id="no-such-task"] .error');
  assert.match(await page.textContent('article[data-task-id="no-such-task"] .error') ?? '', /HTTP 404/);

  // A real task over a local S3 bucket (two notes and one broken PDF), followed to its end.
  await s3.createBucket('console-test');
  await s3.putObjects('console-test', [['in/a.md', '# Alpha\n\nAlpha notes about quokkas.'], ['in/b.txt', 'Beta notes about wombats.'], ['in/broken.pdf', 'not a pdf at all']]);
  const created = await request(server, 'POST', '/v3/docsearch/ingestBucket', {
    token: project.apiKey,
    body: { source: { type: 's3', bucket: 'console-test', prefix: 'in/', endpoint: s3.endpoint, region: s3.region, credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } } },
  });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const taskId: string = created.body.bucket_ingest_task_id;
  await page.fill('#task-id', taskId);
  await page.click('#task-watch');
  const card = `article[data-task-id="${taskId}"]`;
  await page.waitForSelector(`${card} .badge:is([data-state="done"], [data-state="done_with_errors"], [data-state="failed"])`, { timeout: 90_000 });
  assert.equal(await page.getAttribute(`${card} .badge`, 'data-state'), 'done_with_errors');
  await page.waitForSelector(`${card} table td.mono`);
  assert.equal(await page.textContent(`${card} table td.mono`), 'in/broken.pdf');
  assert.match(await page.textContent(`${card} .progress`) ?? '', /3 of 3 files · 2 done, 1 failed/);
  await shot(page, '6-bucket-task');
  await page.close();
  assert.deepEqual(pageErrors, []);
});

test('account login: e-mail and password, then a project chosen from the list', { timeout: 60_000 }, async () => {
  const page = await openConsole();
  await signInAndChoose(page, server.email, server.password, project.projectId);
  assert.match(await page.textContent('#who-label') ?? '', new RegExp(project.name));
  await page.click('#tabs a[data-view="docs"]');
  await page.waitForSelector('#docs tbody tr');
  const { body: list } = await request(server, 'GET', '/v3/docsearch/docs', { token: project.apiKey });
  assert.ok(list.total_documents > 0);
  assert.equal(await page.locator('#docs tbody tr').count(), list.total_documents, 'the project of the first test, seen through a session token and X-Project-ID');
  await page.click('#sign-out');
  await page.waitForSelector('#login-email');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('docsearch.console.session')), null);
  await page.close();
  assert.deepEqual(pageErrors, []);
});
