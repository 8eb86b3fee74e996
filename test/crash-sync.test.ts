// Crash safety of bucket sync: the real server (child process) is SIGKILLed during the sync run that
// changes, deletes and adds documents, against a real S3-protocol server, and restarted, on SQLite and
// PostgreSQL; both runs still end done with exact counts and nothing lost, stale or duplicated
// (bench/crash-sync.ts kills during both runs, larger, and more often: `--objects 200 --kills 3`).
// Each restart costs a server start-up (seconds), so one kill is what this test affords.
// Runs alone: SIGKILLs the server and times its restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSyncCrash } from '../bench/crash-sync.ts';
import { BACKENDS } from './helpers/start-test-server.ts';
import { createTestDatabase } from './helpers/postgres.ts';

for (const backend of BACKENDS) {
  test(`SIGKILL during bucket sync (${backend}): exact counts, nothing lost, stale or duplicated`, { timeout: 300_000 }, async (t) => {
    const db = backend === 'postgres' ? await createTestDatabase() : undefined;
    try {
      const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : undefined;
      const report = await runSyncCrash({ objects: 20, kills: [0, 1], seed, databaseUrl: db?.url, log: (l) => t.diagnostic(l) });
      t.diagnostic(`seed ${report.seed}: ${report.kills} kills; runs ${JSON.stringify(report.runs)}`);
      assert.deepEqual(report.violations, [], `seed ${report.seed}`);
      assert.equal(report.runs.length, 2);
    } finally {
      await db?.drop().catch(() => undefined);
    }
  });
}
