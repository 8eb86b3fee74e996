// The per-namespace writer lease on both control-plane backends: exclusive, re-entrant within
// a process, renewed while held, taken over after the TTL when the holder stopped renewing (died), a
// stalled holder notices the take-over and re-acquires before its next commit, and a queued node gets
// the lease before a holder that keeps re-acquiring it; a holder known to be dead is taken over at once. Each "node" is a WriterLeases with its own owner.
// Runs alone: asserts lease takeover times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControlPlane } from '../src/storage/db.ts';
import { LeaseStore } from '../src/storage/lease-store.ts';
import { WriterLeases } from '../src/storage/writer-lease.ts';
import { BACKENDS, openTestControlPlane } from './helpers/index.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withControlPlane(backend: string, fn: (cp: ControlPlane) => Promise<void>): Promise<void> {
  const { cp, close } = await openTestControlPlane(backend, 'docsearch-lease-');
  try {
    await fn(cp);
  } finally {
    await close();
  }
}

for (const backend of BACKENDS) {
  test(`writer lease (${backend}): exclusive, shared in-process, taken over after expiry, fair`, { timeout: 60_000 }, async () => {
    await withControlPlane(backend, async (cp) => {
      const store = new LeaseStore(cp);
      const ns = 'ns_lease_test';
      const a = new WriterLeases(store, { owner: 'node-a', ttlMs: 1000, pollMs: 20 });
      const b = new WriterLeases(store, { owner: 'node-b', ttlMs: 1000, pollMs: 20 });

      // Exclusive: b waits until a's hold ends; a's nested and concurrent holds share one acquisition.
      const order: string[] = [];
      let bDone!: Promise<void>;
      await a.hold(ns, async () => {
        const first = await store.inspect(ns);
        assert.equal(first?.holder, 'node-a');
        await Promise.all([a.hold(ns, async () => { order.push('a-nested'); }), a.hold(ns, async () => { order.push('a-concurrent'); })]);
        assert.equal((await store.inspect(ns))?.epoch, first?.epoch, 'nested holds do not re-acquire');
        bDone = b.hold(ns, async () => { order.push('b'); });
        await sleep(1500); // longer than the TTL: renewal keeps the lease with a
        assert.equal((await store.inspect(ns))?.holder, 'node-a');
        order.push('a-end');
      });
      await bDone;
      assert.deepEqual(order, ['a-nested', 'a-concurrent', 'a-end', 'b']);
      assert.equal((await store.inspect(ns))?.holder, null, 'released when the last hold ends');

      // A holder that stops renewing (a dead process: its row is left behind) is taken over after the TTL.
      const dead = await store.tryAcquire(ns, 'node-dead', 1000);
      assert.ok(dead);
      const t0 = Date.now();
      await b.hold(ns, async () => { assert.equal((await store.inspect(ns))?.holder, 'node-b'); });
      const takeover = Date.now() - t0;
      assert.ok(takeover >= 800 && takeover < 3000, `take-over after ${takeover} ms (TTL 1000 ms)`);
      assert.equal(await store.renew(ns, 'node-dead', dead!, 1000), false, 'the old holder cannot renew');

      // A holder known to be dead (same host, PID gone) is taken over at once, long before its TTL.
      await store.tryAcquire(ns, 'node-dead-here', 60_000);
      const c = new WriterLeases(store, { owner: 'node-c', ttlMs: 60_000, pollMs: 20, isDead: (o) => o === 'node-dead-here' });
      const tc = Date.now();
      await c.hold(ns, async () => { assert.equal((await store.inspect(ns))?.holder, 'node-c'); });
      assert.ok(Date.now() - tc < 2000, `dead holder taken over after ${Date.now() - tc} ms`);

      // A stalled holder whose lease was taken over re-acquires (waits) at its next ensureValid().
      await a.hold(ns, async () => {
        const stolen = await cp.db.updateTable('namespace_leases').set({ holder: 'node-c', epoch: 999 }).where('namespace', '=', ns).executeTakeFirst();
        assert.equal(Number(stolen.numUpdatedRows), 1);
        await cp.db.updateTable('namespace_leases').set({ expires_at: 0 }).where('namespace', '=', ns).execute();
        await sleep(500); // the renewal timer (TTL/3) finds the lease lost
        assert.equal(a.holds(ns), false);
        await a.ensureValid(ns);
        assert.equal(a.holds(ns), true);
        assert.equal((await store.inspect(ns))?.holder, 'node-a');
      });

      // Fairness: while a keeps re-acquiring in a loop, a queued b still gets its turn.
      let stop = false;
      let aRounds = 0;
      const busy = (async () => { while (!stop) await a.hold(ns, async () => { aRounds++; await sleep(30); }); })();
      await sleep(100);
      const tb = Date.now();
      await b.hold(ns, async () => undefined);
      const waited = Date.now() - tb;
      stop = true;
      await busy;
      assert.ok(aRounds > 1 && waited < 500, `b waited ${waited} ms while a looped ${aRounds} times`);

      // The commit counter only grows.
      const v1 = await store.bumpVersion(ns);
      assert.equal(await store.version(ns), v1);
      assert.equal(await store.bumpVersion(ns), v1 + 1);
    });
  });
}
