// SIGKILL trials on both control planes (the target: 200 kills, heavy files included, SQLite
// and PostgreSQL, 0 lost or half-visible documents). Runs the crash harness (bench/crash-harness.ts)
// once per backend with heavy files (8 MB unbroken text, zip bomb, 1,500-page PDF) mixed into the
// ingests, and reports per backend: kills, jobs, lost / duplicated / half-visible documents, other
// violations, restart time (spawn to /readyz) and recovery time (readyz to no job pending or
// processing, start-up recovery finished). PostgreSQL is the throwaway server of test/helpers/postgres.ts.
// On the shared 2-core machine a restart may take up to 600 s to become ready and the jobs up to 300 s to
// end (a heavy file is 25,000 chunks) before a check counts them as violations.
// Running totals go to stderr after every kill, and the JSON in bench/results/ is rewritten each time, so
// a run stopped early reports the trials it completed.
// Run: nice -n 10 npx tsx bench/crash-trials.ts [--iterations 200] [--backends sqlite,postgres]
//      [--heavy 0.05] [--budget-s 7200] [--seed N]
import fs from 'node:fs';
import path from 'node:path';
import { runCrashScenario, repoRoot, type CrashReport } from './crash-harness.ts';
import { createTestDatabase } from '../test/helpers/postgres.ts';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const iterations = Number(arg('--iterations', '200'));
const heavyShare = Number(arg('--heavy', '0.05'));
const budgetMs = Number(arg('--budget-s', '7200')) * 1000;
const seed = process.argv.includes('--seed') ? Number(arg('--seed', '0')) : undefined;
const backends = arg('--backends', 'sqlite,postgres').split(',');

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0; };
const count = (r: CrashReport, re: RegExp) => r.violations.filter((v) => re.test(v)).length;

/** The per-backend summary line of the report. */
function summarise(backend: string, r: CrashReport) {
  const lost = count(r, /was lost|lost its record|has no visible document|seen done, now/);
  const duplicated = count(r, /duplicated|different jobs/);
  const halfVisible = count(r, /half visible|orphan|left in state|invisible document/);
  return {
    backend, seed: r.seed, kills: r.iterations, jobs: r.jobsCreated, done: r.jobsDone, failed: r.jobsFailed, heavy_ingests: r.heavyIngests,
    cancels: r.cancels, doc_deletes: r.docDeletes, lost, duplicated, half_visible: halfVisible,
    other_violations: r.violations.length - lost - duplicated - halfVisible - count(r, /data dir kept/),
    // restartMs[0] is the first, clean start; the others are restarts after a kill.
    first_start_ms: r.restartMs[0] ?? 0,
    restart_ms: { p50: pct(r.restartMs.slice(1), 0.5), max: Math.max(0, ...r.restartMs.slice(1)) },
    recovery_ms: { p50: pct(r.settleMs, 0.5), p95: pct(r.settleMs, 0.95), max: Math.max(0, ...r.settleMs) },
    at_kill: r.atKill, duration_s: Math.round(r.durationMs / 1000), violations: r.violations.slice(0, 20),
  };
}

const out = path.join(repoRoot, 'bench', 'results', `crash-trials-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
const rows: Array<ReturnType<typeof summarise>> = [];
/** The results file is rewritten after every iteration, so a run stopped early still reports its trials. */
const save = (current?: ReturnType<typeof summarise>) => fs.writeFileSync(out, JSON.stringify(current ? [...rows, current] : rows, null, 2) + '\n');
/**
 * One backend's trials. A failure of the harness itself (a restart that never became ready) ends them but
 * keeps what the completed trials found.
 */
async function runBackend(backend: string, databaseUrl?: string): Promise<ReturnType<typeof summarise> | undefined> {
  let last: ReturnType<typeof summarise> | undefined;
  try {
    const report = await runCrashScenario({
      maxIterations: iterations, budgetMs, seed, heavyShare, databaseUrl, startTimeoutMs: 600_000, settleTimeoutMs: 300_000,
      log: (l) => console.error(`[${backend}] ${l}`),
      onIteration: (partial) => {
        const r = summarise(backend, partial);
        last = r;
        save(r);
        console.error(`[${backend}] running totals after ${r.kills} kills (${r.duration_s} s): ${r.jobs} jobs, ${r.heavy_ingests} heavy, ` +
          `lost ${r.lost}, duplicated ${r.duplicated}, half-visible ${r.half_visible}, other ${r.other_violations}; ` +
          `restart p50/max ${r.restart_ms.p50}/${r.restart_ms.max} ms, recovery p50/p95/max ${r.recovery_ms.p50}/${r.recovery_ms.p95}/${r.recovery_ms.max} ms`);
      },
    });
    return summarise(backend, report);
  } catch (err) {
    console.error(`[${backend}] stopped: ${String(err)}`);
    return last && { ...last, violations: [...last.violations, `harness stopped: ${String(err)}`] };
  }
}

for (const backend of backends) {
  const db = backend === 'postgres' ? await createTestDatabase() : undefined;
  try {
    const row = await runBackend(backend, db?.url);
    if (row) rows.push(row);
    save();
  } finally {
    await db?.drop().catch(() => undefined);
  }
}
console.log(JSON.stringify(rows, null, 2));
console.log('\n| backend | kills | jobs | heavy | lost | duplicated | half-visible | other | restart p50/max ms | recovery p50/p95/max ms |\n|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.backend} | ${r.kills} | ${r.jobs} | ${r.heavy_ingests} | ${r.lost} | ${r.duplicated} | ${r.half_visible} | ${r.other_violations} | ${r.restart_ms.p50}/${r.restart_ms.max} | ${r.recovery_ms.p50}/${r.recovery_ms.p95}/${r.recovery_ms.max} |`);
}
process.exit(rows.some((r) => r.violations.length) ? 1 : 0);
