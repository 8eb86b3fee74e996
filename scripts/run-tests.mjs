#!/usr/bin/env node
// `npm test`: runs every test file of the project (src/**/*.test.ts and scripts/*.test.ts unit tests beside
// the code, test/**/*.test.ts integration tests, and the src/ and test/ folders of each workspace package
// under packages/) with Node's built-in test runner under tsx, and exits with its exit code. The runner
// prints its own summary (`# pass N`, `# fail N`).
//   TEST_FILTER=substr        only files whose path contains substr (comma-separated: any of them)
//   TEST_CONCURRENCY=n        test files run at once (default 1: integration files start servers and the
//                             machine has 2 cores; each file is already a separate process)
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

const concurrency = Math.max(1, Number.parseInt(process.env.TEST_CONCURRENCY ?? '1', 10) || 1);
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...process.argv.slice(2), ...files];
console.error(`run-tests: ${files.length} file(s), concurrency ${concurrency}`);
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, LANCEDB_LOG: process.env.LANCEDB_LOG ?? 'error' } });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
