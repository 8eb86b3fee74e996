// Crash safety: the real server (child process, SQLite + LanceDB) is SIGKILLed at random
// moments during ingests, deletes, cancels and webhook deliveries, restarted, and after each restart
// every job must end done or failed, no document may be half visible, no chunk may lack a document,
// nothing done may be lost, and every terminal job must get exactly one (verifiable) completion event.
// Bounded to ~50 s here (CRASH_BUDGET_S overrides); bench/crash-sigkill.ts runs many more iterations.
// Runs alone: SIGKILLs the server and times its restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCrashScenario } from '../bench/crash-harness.ts';

test('SIGKILL at random points: jobs end done or failed, no half documents, no orphans, nothing done lost', { timeout: 240_000 }, async (t) => {
  const budgetS = Number(process.env.CRASH_BUDGET_S ?? 45);
  const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : undefined;
  const report = await runCrashScenario({ budgetMs: budgetS * 1000, seed, log: (l) => t.diagnostic(l) });
  t.diagnostic(`seed ${report.seed}: ${report.iterations} kill/restart iterations in ${report.durationMs} ms; ` +
    `${report.jobsCreated} jobs (${report.jobsDone} done, ${report.jobsFailed} failed), ${report.cancels} cancels, ` +
    `${report.docDeletes} document deletes, ${report.idempotentPairs} idempotent pairs, ${report.webhookEvents} webhook events; ` +
    `at the kills: ${report.atKill.processing} processing, ${report.atKill.pending} pending, ${report.atKill.deleting} deleting`);
  assert.deepEqual(report.violations, [], `seed ${report.seed}`);
  assert.ok(report.iterations >= 2, `only ${report.iterations} iterations fit the budget`);
  assert.ok(report.jobsCreated > 0);
});
