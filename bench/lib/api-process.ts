// The service as its own `api` process on a kept benchmark data directory (bench:latency, bench:memory):
// started the way `npm start` runs it (MALLOC_ARENA_MAX=2 unless set), rate limits off, and awaited
// until /readyz answers, so a benchmark measures the server a user runs and not the in-process app.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './beir.ts';
import { freePort } from '../../test/jobs-helpers.ts';

/** Node flags `npm start` passes (package.json "start"; docs/deployment.md explains them). */
export const NPM_START_NODE_ARGS = ['--max-semi-space-size=48'];

/**
 * Start the server process and wait until it is ready.
 * @param opts.dataDir     DOCSEARCH_DATA_DIR of the kept namespace
 * @param opts.secret      its DOCSEARCH_SECRET; opts.accountKey its bootstrap account key
 * @param opts.env         further environment (wins over the defaults, e.g. MALLOC_ARENA_MAX)
 * @param opts.nodeArgs    extra Node flags (e.g. --cpu-prof)
 * @param opts.role        DOCSEARCH_ROLE (default api; `all` also runs the ingest workers)
 * @returns the child process and its base URL (http://127.0.0.1:port)
 * @throws Error when the server is not ready within 60 s (the child is killed first)
 */
export async function startApiProcess(opts: { dataDir: string; secret: string; accountKey: string; env?: Record<string, string>; nodeArgs?: string[]; role?: 'api' | 'all' }): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  // The Node flags of `npm start` (package.json), then the caller's; BENCH_API_NODE_ARGS (space-separated)
  // replaces npm start's, to measure another setting.
  const startArgs = process.env.BENCH_API_NODE_ARGS !== undefined ? process.env.BENCH_API_NODE_ARGS.split(' ').filter(Boolean) : NPM_START_NODE_ARGS;
  const child = spawn(process.execPath, [...startArgs, ...(opts.nodeArgs ?? []), '--import', 'tsx', path.join(repoRoot, 'src', 'main.ts')], {
    cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      MALLOC_ARENA_MAX: '2', ...process.env, ...opts.env, DOCSEARCH_DATA_DIR: opts.dataDir, DOCSEARCH_SECRET: opts.secret,
      DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: opts.accountKey, DOCSEARCH_ROLE: opts.role ?? 'api', DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0',
      DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/readyz`)).ok) break; } catch { /* not up yet */ }
    if (i > 600) {
      child.kill();
      throw new Error('server did not become ready in 60 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base };
}
