// Start-up recovery runs behind readiness: a restarted server listens, answers /readyz and answers
// searches in every namespace while the reconcile of a namespace is still held up (here: another node
// holds its writer lease, so its interrupted delete and its orphan chunks cannot be cleaned yet), and
// search never shows what recovery has still to remove. Once the lease is free, recovery finishes the
// delete and removes the orphans, and /readyz says so. On SQLite and PostgreSQL.
// Runs alone: kills and restarts the server, with readiness deadlines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { BACKENDS, startTestServer, createProject } from './helpers/index.ts';
import { api, ingestDocsDone } from './helpers/api.ts';
import { createApp, type AppHandle } from '../src/app.ts';
import { openControlPlane } from '../src/storage/db.ts';
import { LeaseStore } from '../src/storage/lease-store.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or a rejection naming `what` after `ms`. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms); });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Hit { doc_id: string }

for (const backend of BACKENDS) {
  describe(`start-up recovery behind readiness (${backend})`, () => {
    test('ready and searchable while a namespace waits for recovery; recovery then finishes its delete and removes its orphans', { timeout: 180_000 }, async () => {
      const server = await startTestServer({ backend });
      let again: AppHandle | undefined;
      try {
        const a = await createProject(server);
        const b = await createProject(server);
        const docsA = await ingestDocsDone(server.baseUrl, a.apiKey, ['md/wiki.md', 'md/nested.md', 'txt/norwich-city.txt']);
        const docsB = await ingestDocsDone(server.baseUrl, b.apiKey, ['txt/norwich-city.txt']);
        const [kept, deleting, orphan] = [docsA['md/wiki.md'], docsA['md/nested.md'], docsA['txt/norwich-city.txt']];
        await server.handle.close();

        // What a crash leaves: a delete that hid its document and stopped, and chunks whose document was
        // never committed (no document row, no unfinished job). Another node holds A's writer lease.
        const cp = await openControlPlane({ dataDir: server.dataDir, databaseUrl: server.services.config.databaseUrl });
        const leases = new LeaseStore(cp);
        try {
          await cp.db.updateTable('documents').set({ state: 'deleting' }).where('doc_id', '=', deleting).execute();
          await cp.db.deleteFrom('documents').where('doc_id', '=', orphan).execute();
          await cp.db.updateTable('jobs').set({ status: 'failed' }).where('doc_id', '=', orphan).execute();
          const held = await leases.tryAcquire(a.namespace, 'another-node', 120_000);
          assert.ok(held, 'the other node holds the lease');

          const t0 = Date.now();
          again = await within(createApp(server.services.config, { logger: false }), 60_000, 'start-up');
          await again.http.listen({ host: '127.0.0.1', port: 0 });
          again.startWorkers();
          again.startRecovery();
          const base = `http://127.0.0.1:${(again.http.server.address() as AddressInfo).port}`;

          const ready = await api(base, undefined, 'GET', '/readyz');
          assert.equal(ready.status, 200);
          assert.equal((ready.body as { recovery: { status: string } }).recovery.status, 'running', 'recovery is still held up by the lease');

          const search = async (key: string, query: string) => {
            const r = await api(base, key, 'POST', '/v3/docsearch/search', { query, format: 'json', min_relevance: 0 });
            assert.equal(r.status, 200, JSON.stringify(r.body));
            return new Set((r.body as { results: Hit[] }).results.map((h) => h.doc_id));
          };
          // Each query matches one of A's three documents; only the committed, visible one may be found.
          for (const q of ['Iwan Roberts Norwich City forward', 'a list featuring nesting abc123', 'IBM research organization Armonk']) {
            const seen = await search(a.apiKey, q);
            assert.ok(!seen.has(deleting) && !seen.has(orphan), `search shows only committed, visible documents: ${[...seen]}`);
          }
          assert.ok((await search(a.apiKey, 'IBM research organization Armonk')).has(kept), 'the namespace under recovery answers');
          assert.deepEqual([...(await search(b.apiKey, 'Iwan Roberts Norwich City forward'))], [docsB['txt/norwich-city.txt']]);
          const stillDeleting = await cp.db.selectFrom('documents').select('state').where('doc_id', '=', deleting).executeTakeFirst();
          assert.equal(stillDeleting?.state, 'deleting', 'all of that was answered before recovery reached the namespace');
          const answeredMs = Date.now() - t0;

          await leases.release(a.namespace, 'another-node', held);
          let done: { status: string; orphans_removed: number; deletes_finished: number } | undefined;
          const deadline = Date.now() + 60_000;
          while (Date.now() < deadline) {
            done = ((await api(base, undefined, 'GET', '/readyz')).body as { recovery: typeof done }).recovery;
            if (done?.status !== 'running') break;
            await sleep(100);
          }
          assert.equal(done?.status, 'done', JSON.stringify(done));
          assert.equal(done?.deletes_finished, 1);
          assert.equal(done?.orphans_removed, 1);
          assert.equal(await cp.db.selectFrom('documents').select('doc_id').where('doc_id', '=', deleting).executeTakeFirst(), undefined);
          assert.deepEqual(await again.services.index.listDocIds(a.namespace), [kept]);
          assert.deepEqual(await again.services.index.listDocIds(b.namespace), [docsB['txt/norwich-city.txt']]);
          assert.ok(answeredMs < 60_000);
        } finally {
          await cp.close();
        }
      } finally {
        await again?.close();
        await server.close();
      }
    });
  });
}
