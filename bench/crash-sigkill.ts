// Benchmark / soak run of the SIGKILL crash harness (bench/crash-harness.ts): many kill + restart cycles
// of the real server with a random mix of ingests, deletes, cancels and webhooks, then the invariants of
// bench/crash-checks.ts after each restart. Prints a JSON report and writes it to bench/results/.
// Run: npx tsx bench/crash-sigkill.ts [--iterations 100] [--budget-s 1800] [--seed N] [--lease-ms 2000]
import fs from 'node:fs';
import path from 'node:path';
import { runCrashScenario, repoRoot } from './crash-harness.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const seedArg = process.argv.indexOf('--seed');
const report = await runCrashScenario({
  maxIterations: arg('--iterations', 100),
  budgetMs: arg('--budget-s', 1800) * 1000,
  seed: seedArg > 0 ? Number(process.argv[seedArg + 1]) : undefined,
  leaseMs: arg('--lease-ms', 2000),
  log: (l) => console.error(l),
});
const restarts = [...report.restartMs].sort((a, b) => a - b);
const summary = { ...report, restartMs: undefined, restartP50Ms: restarts[Math.floor(restarts.length / 2)], restartMaxMs: restarts.at(-1) };
console.log(JSON.stringify(summary, null, 2));
const out = path.join(repoRoot, 'bench', 'results', `crash-sigkill-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');
process.exit(report.violations.length ? 1 : 0);
