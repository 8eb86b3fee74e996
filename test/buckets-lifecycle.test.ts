// Bucket ingest task lifecycle through the HTTP API: dry run (validation report, sample,
// cross-region egress estimate; nothing created), acknowledge_egress_cost, one active task per account
// (409), pause/resume (paused_user, back to the phase it paused in), cancel (-> failed, described as
// cancelled; idempotent; retryFailed refused), request validation, the SSRF guard on user endpoints, 404s,
// and a GCS bucket (local JSON-API server, self-signed service-account JWTs, empty pages in the listing)
// whose wrong key pauses with paused_credential_error until PATCH credentials.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { terminal, waitForTask } from './helpers/bucket-tasks.ts';
import { api } from './helpers/api.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { startGcsServer, type GcsTestServer } from './helpers/gcs-server.ts';

const note = (i: number) => `# Note ${i}\n\nObservation ${i}: the lichen quabbernix${i} grows on north-facing rocks.\n`;

describe('bucket ingest task lifecycle', () => {
  let server: TestServer;
  let s3: S3TestServer;
  let gcs: GcsTestServer;
  const BUCKET = 'lifecycle';
  const s3source = (extra: Record<string, unknown> = {}) => ({
    type: 's3', bucket: BUCKET, prefix: 'n/', endpoint: s3.endpoint,
    credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey }, ...extra,
  });
  const create = (key: string, body: unknown, headers: Record<string, string> = {}) => api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', body, headers);

  before(async () => {
    [s3, gcs] = await Promise.all([startS3Server(), startGcsServer({ emptyPages: true, location: 'EUROPE-WEST1' })]);
    await s3.createBucket(BUCKET);
    await s3.putObjects(BUCKET, Array.from({ length: 150 }, (_, i) => [`n/${String(i).padStart(3, '0')}.md`, note(i)] as [string, string]));
    gcs.putObjects('gcs-bucket', Array.from({ length: 30 }, (_, i) => [`papers/p${i}.txt`, note(500 + i)] as [string, string]));
    server = await startTestServer({ env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_REGION: 'eu-west-1' } });
  });
  after(async () => {
    await server?.close();
    await Promise.all([s3?.close(), gcs?.close()]);
  });

  test('dry run validates access, samples, estimates cross-region egress and creates nothing', async () => {
    const { apiKey: key } = await createProject(server);
    const r = await create(key, { source: s3source({ region: 'us-east-1' }), filter_glob: '0*.md', dry_run: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const rep = r.body as any;
    assert.equal(rep.dry_run, true);
    assert.equal(rep.valid, true);
    assert.deepEqual(rep.checks, { endpoint: 'ok', list: 'ok', read: 'ok' });
    assert.equal(rep.objects_matched, 100);
    assert.equal(rep.sample.length, 20);
    assert.equal(rep.sample[0].key, 'n/000.md');
    assert.equal(rep.listing_complete, true);
    assert.equal(rep.home_region, 'eu-west-1');
    assert.equal(rep.cross_region, true);
    assert.ok(rep.egress_estimate && rep.egress_estimate.bytes === rep.bytes_matched && rep.egress_estimate.usd >= 0);
    assert.equal(rep.acknowledge_egress_cost_required, true);
    const wrong = (await create(key, { source: s3source({ credentials: { access_key_id: s3.accessKeyId, secret_access_key: 'nope' } }), dry_run: true })).body as any;
    assert.equal(wrong.valid, false);
    assert.equal(wrong.checks.list, 'denied');
    assert.equal(wrong.error.code, 'source_access_denied');
    // Cross-region without the acknowledgement is refused; with it the task is created.
    const refused = await create(key, { source: s3source({ region: 'us-east-1' }) });
    assert.equal(refused.status, 400);
    assert.equal((refused.body as any).code, 'egress_cost_not_acknowledged');
    const ok = await create(key, { source: s3source({ region: 'us-east-1' }), filter_glob: '00*.md', acknowledge_egress_cost: true });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    const done = await waitForTask(server.baseUrl, key, (ok.body as any).bucket_ingest_task_id, terminal);
    assert.equal(done.state, 'done');
    assert.equal(done.progress.files_done, 10);
  });

  test('pause stops new files, resume returns to the phase; one active task per account (409)', async () => {
    const { apiKey: key } = await createProject(server);
    const { apiKey: otherKey } = await createProject(server);
    const r = await create(key, { source: s3source(), filter_glob: '*.md' });
    assert.equal(r.status, 202);
    const id = (r.body as any).bucket_ingest_task_id;
    // Content-Type: application/json with no body (as many clients send) is accepted.
    const json = { 'content-type': 'application/json' };
    const p = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/pause`, undefined, json);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal((p.body as any).state, 'paused_user');
    assert.ok(['queued_org', 'listing', 'materialising'].includes((p.body as any).resume_state));
    assert.equal((await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/pause`)).status, 200, 'pausing again is idempotent');
    // Files in flight drain; then nothing moves.
    const drained = await waitForTask(server.baseUrl, key, id, (t) => t.progress.files_in_flight === 0);
    await new Promise((res) => setTimeout(res, 1000));
    const still = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}`)).body as any;
    assert.equal(still.state, 'paused_user');
    assert.equal(still.progress.files_done, drained.progress.files_done);
    assert.ok(still.progress.files_done < 150, 'not everything was ingested while paused');
    // The account has an active (paused) task: a second one, from any of its projects, is refused.
    for (const k of [key, otherKey]) {
      const second = await create(k, { source: s3source() });
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.equal((second.body as any).code, 'task_already_active');
      if (k === key) assert.deepEqual((second.body as any).details, { active_task_id: id, active_task_state: 'paused_user' });
      // Another project of the account learns that a task is active, not its id or state.
      else assert.ok(!JSON.stringify(second.body).includes(id) && !JSON.stringify(second.body).includes('paused_user'), JSON.stringify(second.body));
    }
    const resumed = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/resume`, undefined, json);
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal((resumed.body as any).state, still.resume_state);
    const done = await waitForTask(server.baseUrl, key, id, terminal);
    assert.equal(done.state, 'done');
    assert.equal(done.progress.files_done, 150);
    assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any).total_documents, 150);
    for (const action of ['pause', 'resume']) {
      const late = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/${action}`);
      assert.equal(late.status, 409);
      assert.equal((late.body as any).code, 'task_not_active');
    }
    const retry = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/retryFailed`, undefined, json);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal((retry.body as any).retried, 0);
    // A body that is there but not JSON is still refused.
    const bad = await fetch(`${server.baseUrl}/v3/docsearch/ingestBucket/${id}/retryFailed`, { method: 'POST', headers: { ...json, authorization: `Bearer ${key}` }, body: '{' });
    assert.equal(bad.status, 400);
  });

  test('cancel ends the task failed (described as cancelled), keeps ingested documents, frees the account', async () => {
    const { apiKey: key } = await createProject(server);
    const r = await create(key, { source: s3source() });
    const id = (r.body as any).bucket_ingest_task_id;
    await waitForTask(server.baseUrl, key, id, (t) => t.progress.files_done >= 1 || terminal(t));
    const c = await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/ingestBucket/${id}`);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const cancelled = c.body as any;
    assert.equal(cancelled.state, 'failed');
    assert.equal(cancelled.cancelled, true);
    assert.match(cancelled.state_description, /^Cancelled by the user/);
    assert.ok(cancelled.progress.files_done >= 1 && cancelled.progress.files_done < 150);
    assert.equal(cancelled.progress.files_pending, 0);
    assert.equal((await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/ingestBucket/${id}`)).status, 200, 'cancel is idempotent');
    const retry = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/retryFailed`);
    assert.equal(retry.status, 409);
    assert.equal((retry.body as any).code, 'task_cancelled');
    // Nothing a cancelled task says points to retryFailed, which would only answer 409.
    assert.doesNotMatch(cancelled.state_description, /retryFailed/);
    for (const action of ['resume', 'pause']) {
      const r2 = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/${action}`);
      assert.equal(r2.status, 409);
      assert.equal((r2.body as any).code, 'task_not_active');
      assert.doesNotMatch((r2.body as any).message, /retryFailed/);
      assert.match((r2.body as any).message, /cancelled/);
    }
    // Ingest jobs of the task all end; documents are exactly the files that were done.
    await new Promise((res) => setTimeout(res, 1500));
    const final = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}`)).body as any;
    assert.equal(final.state, 'failed');
    assert.equal(final.progress.files_in_flight, 0);
    const docs = ((await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any).total_documents;
    assert.equal(docs, final.progress.files_done);
    // The account is free again.
    const next = await create(key, { source: s3source(), filter_glob: '149.md' });
    assert.equal(next.status, 202);
    assert.equal((await waitForTask(server.baseUrl, key, (next.body as any).bucket_ingest_task_id, terminal)).state, 'done');
  });

  test('validation, SSRF guard and 404s', async () => {
    const { apiKey: key } = await createProject(server);
    const { apiKey: otherKey } = await createProject(server);
    const cases: Array<[unknown, Record<string, string>, number, string]> = [
      [{ source: { type: 's3', bucket: BUCKET, credentials: { access_key_id: 'x' } } }, {}, 400, 'validation_failed'],
      [{ source: { type: 'azure', bucket: BUCKET, credentials: {} } }, {}, 400, 'validation_failed'],
      [{ source: { type: 'gcs', bucket: BUCKET, credentials: { service_account_json: '{"client_email":"a@b"}' } } }, {}, 400, 'validation_failed'],
      [{ source: s3source(), filter_glob: '[unclosed' }, {}, 400, 'validation_failed'],
      [{ source: s3source({ endpoint: 'http://169.254.169.254' }) }, {}, 403, 'remote_url_forbidden'],
      [{ source: s3source({ endpoint: 'file:///etc/passwd' }) }, {}, 403, 'remote_url_forbidden'],
      [{ source: s3source() }, { 'x-completion': 'https://example.com/' + 'a'.repeat(1100) }, 400, 'invalid_header'],
      // A dry run checks X-Completion as the real create does.
      [{ source: s3source(), dry_run: true }, { 'x-completion': 'https://example.com/' + 'a'.repeat(1100) }, 400, 'invalid_header'],
      [{ source: s3source(), dry_run: true }, { 'x-completion': 'not a target' }, 400, 'invalid_header'],
      [{ source: s3source() }, { 'x-completion': 'ops@example.com' }, 400, 'invalid_header'],
      [{ source: s3source() }, { 'x-completion': 'not a target' }, 400, 'invalid_header'],
    ];
    for (const [body, headers, status, code] of cases) {
      const r = await create(key, body, headers);
      assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 120)} ${JSON.stringify(headers).slice(0, 60)}: ${JSON.stringify(r.body)}`);
      assert.equal((r.body as any).code, code);
    }
    assert.equal((await api(server.baseUrl, undefined, 'POST', '/v3/docsearch/ingestBucket', { source: s3source() })).status, 401);
    const r = await create(key, { source: s3source(), filter_glob: '14[0-4].md' });
    const id = (r.body as any).bucket_ingest_task_id;
    for (const [method, suffix] of [['GET', ''], ['POST', '/pause'], ['POST', '/resume'], ['DELETE', ''], ['GET', '/failures'], ['POST', '/retryFailed']]) {
      const other = await api(server.baseUrl, otherKey, method, `/v3/docsearch/ingestBucket/${id}${suffix}`);
      assert.equal(other.status, 404, `${method} ${suffix} from another project`);
      assert.equal((other.body as any).code, 'bucket_task_not_found');
    }
    assert.equal((await api(server.baseUrl, key, 'GET', '/v3/docsearch/ingestBucket/00000000-0000-0000-0000-000000000000')).status, 404);
    assert.equal((await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}/failures?limit=0`)).status, 400);
    assert.equal((await waitForTask(server.baseUrl, key, id, terminal)).progress.files_done, 5);
  });

  test('GCS: a wrong service-account key pauses; PATCH credentials resumes to done; empty pages are tolerated', async () => {
    const { apiKey: key } = await createProject(server);
    const gsource = (sa: unknown) => ({ type: 'gcs', bucket: 'gcs-bucket', prefix: 'papers/', endpoint: gcs.endpoint, credentials: { service_account_json: sa } });
    const dry = (await create(key, { source: gsource(JSON.stringify(gcs.serviceAccount)), dry_run: true })).body as any;
    assert.equal(dry.valid, true, JSON.stringify(dry));
    assert.equal(dry.objects_matched, 30);
    assert.equal(dry.bucket_location, 'europe-west1');
    const r = await create(key, { source: gsource(JSON.stringify(gcs.untrustedServiceAccount)) });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const id = (r.body as any).bucket_ingest_task_id;
    const paused = await waitForTask(server.baseUrl, key, id, (t) => t.state.startsWith('paused') || terminal(t));
    assert.equal(paused.state, 'paused_credential_error', JSON.stringify(paused));
    const fixed = await api(server.baseUrl, key, 'PATCH', `/v3/docsearch/ingestBucket/${id}/credentials`, { credentials: { service_account_json: gcs.serviceAccount } });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    const done = await waitForTask(server.baseUrl, key, id, terminal);
    assert.equal(done.state, 'done', JSON.stringify(done));
    assert.equal(done.progress.files_done, 30);
    const s = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'quabbernix517', format: 'json' })).body as any;
    assert.ok(s.results[0]?.content.includes('quabbernix517'), JSON.stringify(s.results[0]));
    assert.ok(gcs.requests.some((q) => q.includes('pageToken=real')), 'the listing went through empty pages');
  });
});
