// ProjectService against a real SQLite control plane: the purge callback runs after the delete commits
// (and a failed purge can be retried by deleting again), bootstrap is idempotent even when two calls
// race, and a generated bootstrap password/key is reported once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openControlPlane } from '../storage/db.ts';
import { createProjectDomain } from './index.ts';
import { isAppError } from '../internal/errors.ts';

async function setup(config: { bootstrapAccountKey?: string; bootstrapPassword?: string } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ds-projects-'));
  const cp = await openControlPlane({ dataDir });
  const purged: Array<[string, string]> = [];
  let failNext = false;
  const domain = createProjectDomain({
    db: cp.db,
    config: { serverSecret: 's'.repeat(40), bootstrapEmail: 'admin@x.invalid', ...config },
    purgeNamespace: async (ns, id) => {
      if (failNext) { failNext = false; throw new Error('index unavailable'); }
      purged.push([ns, id]);
    },
  });
  return {
    ...domain, cp, purged, failPurgeOnce: () => { failNext = true; },
    close: async () => { await cp.close(); fs.rmSync(dataDir, { recursive: true, force: true }); },
  };
}

test('delete revokes keys, then purges; a failed purge gives 503 and a retried delete completes it', async () => {
  const d = await setup();
  try {
    const boot = await d.projects.bootstrap();
    const p = await d.projects.createProject(boot.accountId, { name: 'p', product: 'docsearch' });
    d.failPurgeOnce();
    await assert.rejects(d.projects.deleteProject(boot.accountId, p.id), (e) => isAppError(e) && e.status === 503 && e.retryAfterSeconds === 5);
    await assert.rejects(d.auth.authenticate(`Bearer ${p.api_key}`), (e) => isAppError(e) && e.code === 'unauthorized');
    assert.deepEqual(d.purged, []);
    assert.deepEqual(await d.projects.deleteProject(boot.accountId, p.id), { id: p.id, deleted: true });
    assert.deepEqual(d.purged, [[p.namespace, p.id]]);
  } finally { await d.close(); }
});

test('bootstrap: generated credentials reported once; concurrent calls create one account', async () => {
  const d = await setup();
  try {
    const [a, b] = await Promise.all([d.projects.bootstrap(), d.projects.bootstrap()]);
    assert.equal(a.accountId, b.accountId);
    const first = a.created ? a : b;
    assert.match(first.generatedAccountKey ?? '', /^svc_acc_/);
    assert.ok((first.generatedPassword ?? '').length >= 20);
    const again = await d.projects.bootstrap();
    assert.equal(again.created, false);
    assert.equal(again.generatedPassword, undefined);
    assert.equal((await d.cp.db.selectFrom('accounts').select('id').execute()).length, 1);
    const principal = await d.auth.authenticate(`Bearer ${first.generatedAccountKey}`);
    assert.deepEqual(principal, { kind: 'account_key', accountId: a.accountId });
    const login = await d.projects.login('ADMIN@x.invalid ', first.generatedPassword!);
    assert.equal(login.account_id, a.accountId);
  } finally { await d.close(); }
});

test('bootstrap registers a configured key and password', async () => {
  const key = 'svc_acc_' + 'k'.repeat(43);
  const d = await setup({ bootstrapAccountKey: key, bootstrapPassword: 'correct horse battery' });
  try {
    const r = await d.projects.bootstrap();
    assert.equal(r.generatedAccountKey, undefined);
    assert.equal(r.generatedPassword, undefined);
    assert.equal((await d.auth.authenticate(`Bearer ${key}`)).accountId, r.accountId);
    await d.projects.login('admin@x.invalid', 'correct horse battery');
    await d.projects.bootstrap();
    assert.equal((await d.cp.db.selectFrom('api_keys').select('id').execute()).length, 1);
  } finally { await d.close(); }
});
