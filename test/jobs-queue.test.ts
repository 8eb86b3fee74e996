// The durable queue and the worker against real control planes (SQLite and PostgreSQL): every status
// transition, retries with visible errors, re-claim after lease expiry, early release of dead local
// owners, giving up on exhausted jobs, fairness between projects, the concurrency cap, cancellation in
// each state (including aborting a running handler), atomic commit, and Idempotency-Key races.
// Runs alone: steps job leases and retries on wall-clock expiry.
import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import pino from 'pino';
import type { ControlPlane } from '../src/storage/db.ts';
import { JobQueue, JobLostError, type JobRow } from '../src/jobs/queue.ts';
import { Worker, RetryableError, type JobKind } from '../src/jobs/worker.ts';
import { BACKENDS, openTestControlPlane } from './helpers/index.ts';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of BACKENDS) {
  describe(`job queue (${backend})`, () => {
    let cp: ControlPlane;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ cp, close } = await openTestControlPlane(backend, 'docsearch-jobs-'));
    });
    after(async () => {
      await close?.();
    });

    const project = () => 'p-' + crypto.randomBytes(4).toString('hex');
    // Each test claims only its own kind: a job an earlier test left pending (a retry whose backoff ends
    // later) must not be claimed by the next test on a slow machine.
    let K = 'test';
    beforeEach(() => { K = 'test-' + crypto.randomBytes(4).toString('hex'); });
    const job = (projectId: string, extra: Record<string, unknown> = {}) =>
      ({ projectId, kind: K, filename: 'a.txt', size: 1, payload: {}, ...extra });

    test('pending -> processing -> done, versions counted, terminal hook inside the transaction', async () => {
      const q = new JobQueue(cp);
      const seen: Array<[string, string, string]> = [];
      q.onTerminal(async (trx, row, prev) => {
        const inTx = await trx.selectFrom('jobs').select('status').where('id', '=', row.id).executeTakeFirstOrThrow();
        seen.push([row.status, prev.status, inTx.status]);
      });
      const p = project();
      const created = await q.enqueue(job(p));
      assert.equal(created.status, 'pending');
      assert.equal(created.code, 202);
      const claimed = (await q.claim('A', 60_000, [K]))!;
      assert.equal(claimed.id, created.id);
      assert.equal(claimed.status, 'processing');
      assert.equal(claimed.attempts, 1);
      assert.equal(claimed.status_version, 1);
      assert.ok(claimed.started_at);
      const done = (await q.finish(created.id, 'A', { status: 'done', code: 200 }, { docId: 'd1' }))!;
      assert.equal(done.status, 'done');
      assert.equal(done.status_version, 2);
      assert.equal(done.doc_id, 'd1');
      assert.ok(done.finished_at);
      assert.deepEqual(seen, [['done', 'processing', 'done']]);
      assert.equal(await q.finish(created.id, 'A', { status: 'done', code: 200 }), undefined, 'a job finishes once');
      assert.equal(seen.length, 1);
    });

    test('processing -> failed with code and message; retry keeps the last error visible', async () => {
      const q = new JobQueue(cp);
      const p = project();
      const j = await q.enqueue(job(p, { maxAttempts: 2 }));
      await q.claim('A', 60_000, [K]);
      await q.retryLater(j.id, 'A', 'remote answered 503', 150);
      let row = (await q.get(j.id))!;
      assert.equal(row.status, 'pending');
      assert.equal(row.last_error, 'remote answered 503');
      assert.ok(row.run_after > row.updated_at);
      assert.equal(await q.claim('A', 60_000, [K]), undefined, 'not due yet');
      await sleep(200);
      row = (await q.claim('A', 60_000, [K]))!;
      assert.equal(row.attempts, 2);
      const failed = (await q.finish(j.id, 'A', { status: 'failed', code: 422, errorCode: 'no_extractable_text', errorMessage: 'No text.' }))!;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.code, 422);
      assert.equal(failed.error_code, 'no_extractable_text');
    });

    test('a job whose worker died is re-claimed after its lease expires; the dead worker cannot finish it', async () => {
      const q = new JobQueue(cp);
      const j = await q.enqueue(job(project()));
      await q.claim('A', 100, [K]);
      assert.equal(await q.claim('B', 60_000, [K]), undefined, 'lease still valid');
      await sleep(150);
      const again = (await q.claim('B', 60_000, [K]))!;
      assert.equal(again.id, j.id);
      assert.equal(again.attempts, 2);
      assert.equal(await q.heartbeat(j.id, 'A', 1000), false);
      assert.equal(await q.finish(j.id, 'A', { status: 'done', code: 200 }), undefined);
      await assert.rejects(q.commitDone(j.id, 'A', 'd', async () => assert.fail('work must not run')), JobLostError);
      assert.ok(await q.finish(j.id, 'B', { status: 'done', code: 200 }));
    });

    test('leases of a dead process on this host are expired early; exhausted jobs fail with worker_lost', async () => {
      const q = new JobQueue(cp);
      const failedHook: string[] = [];
      q.onTerminal(async (_trx, row) => { failedHook.push(row.error_code ?? ''); });
      const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
      const deadPid = child.stdout.trim();
      const deadOwner = ['w', os.hostname(), fs.readlinkSync('/proc/self/ns/pid'), deadPid, 'x'].join('|');
      const liveOwner = ['w', os.hostname(), fs.readlinkSync('/proc/self/ns/pid'), String(process.pid), 'y'].join('|');
      // Claims take the oldest due job first; distinct created_at milliseconds make that order certain.
      const a = await q.enqueue(job(project(), { maxAttempts: 3 }));
      await sleep(3);
      const b = await q.enqueue(job(project(), { maxAttempts: 1 }));
      await sleep(3);
      const c = await q.enqueue(job(project(), { maxAttempts: 3 }));
      await q.claim(deadOwner, 3600_000, [K]);
      await q.claim(deadOwner, 3600_000, [K]);
      await q.claim(liveOwner, 3600_000, [K]);
      assert.equal(await q.expireDeadOwners(), 2, 'both jobs of the dead pid, not the live one');
      assert.equal(await q.failExhausted(), 1);
      const rb = (await q.get(b.id))!;
      assert.equal(rb.status, 'failed');
      assert.equal(rb.error_code, 'worker_lost');
      assert.equal(rb.code, 500);
      assert.match(rb.error_message!, /Submit the file again/);
      assert.deepEqual(failedHook, ['worker_lost']);
      const ra = (await q.claim('B', 60_000, [K]))!;
      assert.equal(ra.id, a.id);
      assert.equal(ra.attempts, 2);
      assert.equal((await q.get(c.id))!.lease_owner, liveOwner);
    });

    test('claims are fair between projects: a project with one job is not starved by one with many', async () => {
      const q = new JobQueue(cp);
      const big = project();
      const small = project();
      const kind = 'fair-' + crypto.randomBytes(3).toString('hex');
      for (let i = 0; i < 30; i++) await q.enqueue({ ...job(big), kind });
      const first = (await q.claim('A', 60_000, [kind]))!;
      assert.equal(first.project_id, big);
      const one = await q.enqueue({ ...job(small), kind });
      const second = (await q.claim('A', 60_000, [kind]))!;
      assert.equal(second.id, one.id, 'the project with no running job goes first');
      const third = (await q.claim('A', 60_000, [kind]))!;
      assert.equal(third.project_id, big);
      const late = project();
      await q.enqueue({ ...job(late), kind });
      assert.equal((await q.claim('A', 60_000, [kind]))!.project_id, late);
    });

    test('claim skips the projects it is told to (a worker\'s per-project slot cap)', async () => {
      const q = new JobQueue(cp);
      const full = project();
      const other = project();
      for (let i = 0; i < 3; i++) await q.enqueue(job(full));
      assert.equal(await q.claim('A', 60_000, [K], [full]), undefined, 'nothing else is due');
      const o = await q.enqueue(job(other));
      assert.equal((await q.claim('A', 60_000, [K], [full]))!.id, o.id);
      assert.equal(await q.countUnfinished(full, K), 3);
      assert.equal((await q.claim('A', 60_000, [K], []))!.project_id, full);
      assert.equal(await q.countUnfinished(full, K), 3, 'processing counts as unfinished');
    });

    test('cancel in each state; commitDone after a cancel writes nothing', async () => {
      const q = new JobQueue(cp);
      const p = project();
      const pending = await q.enqueue(job(p));
      const r1 = (await q.cancel(p, pending.id))!;
      assert.equal(r1.result, 'cancelled');
      assert.equal(r1.job.status, 'failed');
      assert.equal(r1.job.code, 499);
      assert.equal(r1.job.error_code, 'job_cancelled');
      assert.equal(await q.claim('A', 60_000, [K]), undefined, 'a cancelled job never runs');

      const running = await q.enqueue(job(p));
      await q.claim('A', 60_000, [K]);
      const r2 = (await q.cancel(p, running.id))!;
      assert.equal(r2.result, 'cancelled');
      assert.equal(r2.previous.status, 'processing');
      assert.equal(await q.heartbeat(running.id, 'A', 1000), false, 'the worker learns on its next heartbeat');
      await assert.rejects(q.commitDone(running.id, 'A', 'doc', async () => assert.fail('no commit')), JobLostError);

      const finished = await q.enqueue(job(p));
      await q.claim('A', 60_000, [K]);
      await q.finish(finished.id, 'A', { status: 'done', code: 200 });
      const r3 = (await q.cancel(p, finished.id))!;
      assert.equal(r3.result, 'finished');
      assert.equal(r3.job.status, 'done');
      assert.equal(await q.cancel('other-project', finished.id), undefined, 'scoped to the project');
      assert.equal(await q.deleteFinished(p, running.id), true);
      assert.equal(await q.get(running.id), undefined);
    });

    test('Idempotency-Key: concurrent inserts with one key create one job', async () => {
      const q = new JobQueue(cp);
      const p = project();
      const results = await Promise.all([1, 2, 3].map(() => q.enqueueIdempotent({ ...job(p), idempotencyKey: 'k-1', requestFingerprint: 'f' })));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.row.id)).size, 1);
      const other = await q.enqueueIdempotent({ ...job(project()), idempotencyKey: 'k-1', requestFingerprint: 'f' });
      assert.equal(other.created, true, 'keys are per project');
    });

    test('worker: at most N jobs at once; a cancelled running job is aborted, cleaned up and never done', async () => {
      const q = new JobQueue(cp);
      const kind = 'slow-' + crypto.randomBytes(3).toString('hex');
      let running = 0;
      let maxRunning = 0;
      const cleaned: string[] = [];
      const kinds: JobKind[] = [{
        kind,
        async handle(row: JobRow, signal: AbortSignal, ctx) {
          running++;
          maxRunning = Math.max(maxRunning, running);
          try {
            const waitMs = JSON.parse(row.payload).ms as number;
            await new Promise<void>((resolve) => {
              const t = setTimeout(resolve, waitMs);
              signal.addEventListener('abort', () => { clearTimeout(t); resolve(); });
            });
            if (JSON.parse(row.payload).flaky && row.attempts === 1) throw new RetryableError('flaky once');
            await ctx.commitDone(undefined, async () => undefined);
            return { status: 'done', code: 200 };
          } finally {
            running--;
          }
        },
        async cleanup(row) { cleaned.push(row.id); },
        retryDelayMs: () => 10,
      }];
      const w = new Worker(q, kinds, { leaseMs: 5000, pollMs: 20, concurrency: 2, logger });
      const p = project();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await q.enqueue({ ...job(p), kind, payload: { ms: 150, flaky: i === 0 } })).id);
      const victim = await q.enqueue({ ...job(project()), kind, payload: { ms: 60_000 } });
      w.start();
      for (let i = 0; i < 100 && (await q.get(victim.id))!.status !== 'processing'; i++) await sleep(20);
      assert.equal((await q.get(victim.id))!.status, 'processing');
      await q.cancel(victim.project_id, victim.id);
      assert.equal(await w.abort(victim.id, 5000), true);
      for (let i = 0; i < 200; i++) {
        const rows = await Promise.all(ids.map((id) => q.get(id)));
        if (rows.every((r) => r!.status === 'done')) break;
        await sleep(25);
      }
      await w.stop();
      assert.ok(maxRunning <= 2, `max ${maxRunning} at once`);
      assert.equal(maxRunning, 2);
      const rows = await Promise.all(ids.map((id) => q.get(id)));
      assert.deepEqual(rows.map((r) => r!.status), ['done', 'done', 'done', 'done', 'done']);
      assert.equal(rows[0]!.attempts, 2, 'the flaky job was retried');
      const v = (await q.get(victim.id))!;
      assert.equal(v.status, 'failed');
      assert.equal(v.error_code, 'job_cancelled');
      assert.deepEqual(cleaned, [victim.id]);
    });
  });
}
