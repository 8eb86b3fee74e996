#!/usr/bin/env node
// `npm test`: runs every test file of the project (src/**/*.test.ts and scripts/*.test.ts unit tests beside
// the code, test/**/*.test.ts integration tests, and the src/ and test/ folders of each workspace package
// under packages/) with Node's built-in test runner under tsx, and exits with its exit code. The runner
// prints its own summary (`# pass N`, `# fail N`).
//   TEST_FILTER=substr        only files whose path contains substr (comma-separated: any of them)
//   TEST_CONCURRENCY=n        test files run at once in every phase (default: unit files beside the code —
//                             src/, scripts/, packages/*/src/ — 2 at once; then integration files — test/,
//                             packages/*/test/ — 2 at once; then, one at a time, the integration files whose
//                             header says `// Runs alone: <why>`: they kill processes, time restarts or
//                             latencies, or drive a browser, on budgets a second file beside them would
//                             eat into on 2 cores; each file is its own process)
//   TEST_BACKENDS=sqlite      restrict integration tests to one control-plane backend (see test/helpers)
//   DOCSEARCH_TEST_SKIP_SETUP=1  skip the preflight (scripts/preflight.ts) that first installs, or names,
//                             the Debian packages the tests need (PostgreSQL, nginx, Tesseract + languages)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Recursively list *.test.ts files under dir (relative to the repo root), skipping node_modules. */
function findTests(dir) {
  const out = [];
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return out;
  for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...findTests(rel));
    } else if (entry.isFile() && entry.name.endsWith('.test.ts')) {
      out.push(rel);
    }
  }
  return out;
}

const filters = (process.env.TEST_FILTER ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const packages = fs.existsSync(path.join(root, 'packages'))
  ? fs.readdirSync(path.join(root, 'packages'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join('packages', d.name))
  : [];
const files = [...findTests('src'), ...findTests('scripts'), ...findTests('test'), ...packages.flatMap((p) => [...findTests(path.join(p, 'src')), ...findTests(path.join(p, 'test'))])]
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error(`run-tests: no test files${filters.length ? ` match TEST_FILTER=${process.env.TEST_FILTER}` : ''}`);
  process.exit(1);
}

// The machine set-up comes first, so a missing package is one clear message, not red tests.
const { preflight } = await tsImport('./preflight.ts', import.meta.url);
if (!(await preflight(process.env))) process.exit(1);

const override = Number.parseInt(process.env.TEST_CONCURRENCY ?? '', 10);
const isUnit = (f) => f.startsWith('src/') || f.startsWith('scripts/') || /^packages\/[^/]+\/src\//.test(f);
/** An integration file whose header holds a `// Runs alone: <why>` line (it kills processes, times a restart or a
 *  latency, or drives a browser on a budget) runs with no other file beside it. */
const runsAlone = (f) => /^\/\/ Runs alone: /m.test(fs.readFileSync(path.join(root, f), 'utf8').slice(0, 4000));
const integration = files.filter((f) => !isUnit(f));
const phases = [
  { name: 'unit', files: files.filter(isUnit), concurrency: override > 0 ? override : 2 },
  { name: 'integration', files: integration.filter((f) => !runsAlone(f)), concurrency: override > 0 ? override : 2 },
  { name: 'integration, one file at a time', files: integration.filter(runsAlone), concurrency: override > 0 ? override : 1 },
].filter((p) => p.files.length > 0);

/** Run one phase's files under Node's test runner; resolves to its exit code. */
function runPhase(phase) {
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${phase.concurrency}`, ...process.argv.slice(2), ...phase.files];
  console.error(`run-tests: ${phase.name}: ${phase.files.length} file(s), concurrency ${phase.concurrency}`);
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, LANCEDB_LOG: process.env.LANCEDB_LOG ?? 'error' } });
  const forward = (sig) => child.kill(sig);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
    resolve(code ?? (signal ? 1 : 0));
  }));
}

// Every phase runs even when an earlier one failed, so one run reports every failure.
let status = 0;
for (const phase of phases) status = Math.max(status, await runPhase(phase));
process.exit(status);
