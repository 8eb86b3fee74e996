// Starts the real docsearch application (createApp, the code `npm start` runs) for a benchmark: a fresh
// data directory under the OS temp dir, SQLite control plane, a known bootstrap account key, the builtin
// GloVe cache linked from .tmp/test-cache when present (else built once), optionally listening on
// 127.0.0.1. Projects are created through the real projects API.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp, type AppHandle } from '../../src/app.ts';
import { loadConfig } from '../../src/internal/config.ts';
import { repoRoot } from './beir.ts';

export interface BenchApp {
  handle: AppHandle;
  dataDir: string;
  accountKey: string;
  /** http://127.0.0.1:PORT when started with listen, else ''. */
  baseUrl: string;
  close(): Promise<void>;
}

const GLOVE = path.join(repoRoot, '.tmp', 'test-cache', 'models', 'glove-100d.int8.bin');

/**
 * Start the app. `env` overrides configuration keys (e.g. DOCSEARCH_RERANKER).
 * @param opts.listen listen on 127.0.0.1:0 (needed for HTTP benchmarks)
 */
export async function startBenchApp(opts: { env?: Record<string, string>; listen?: boolean; workers?: boolean; keepDir?: string } = {}): Promise<BenchApp> {
  const kept = opts.keepDir ? keptState(opts.keepDir) : null;
  const dataDir = kept?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-bench-'));
  const model = path.join(dataDir, 'models', 'glove-100d.int8.bin');
  if (fs.existsSync(GLOVE) && !fs.existsSync(model)) {
    fs.mkdirSync(path.join(dataDir, 'models'), { recursive: true });
    // A kept namespace's link into a checkout that is gone dangles: existsSync says no, the link is there.
    fs.rmSync(model, { force: true });
    fs.symlinkSync(GLOVE, model);
  }
  const accountKey = kept?.accountKey ?? 'svc_acc_' + crypto.randomBytes(32).toString('base64url');
  const secret = kept?.secret ?? crypto.randomBytes(32).toString('base64url');
  if (opts.keepDir) fs.writeFileSync(path.join(dataDir, 'bench-app.json'), JSON.stringify({ accountKey, secret }));
  const config = loadConfig({
    DOCSEARCH_DATA_DIR: dataDir,
    DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_SECRET: secret,
    LOG_LEVEL: 'warn',
    // Benchmarks measure searches, not the limiter: a fast run exceeds 6 000 searches a minute from one IP.
    DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0',
    DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0',
    ...opts.env,
  });
  const handle = await createApp(config, { logger: false });
  // Recovery runs behind readiness in the server; a benchmark lets it finish first so it measures nothing of it.
  handle.startRecovery();
  await handle.services.recovery?.start();
  let baseUrl = '';
  if (opts.listen) {
    await handle.http.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(handle.http.server.address() as AddressInfo).port}`;
  }
  if (opts.workers) handle.startWorkers();
  return {
    handle, dataDir, accountKey, baseUrl,
    async close() {
      await handle.close();
      if (!opts.keepDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The data directory of a kept bench app (`keepDir`), created on first use; with the account key and
 * server secret it was started with, so its projects and API keys stay valid on the next run.
 */
function keptState(dir: string): { dataDir: string; accountKey?: string; secret?: string } {
  const dataDir = path.resolve(dir);
  fs.mkdirSync(dataDir, { recursive: true });
  const state = path.join(dataDir, 'bench-app.json');
  if (!fs.existsSync(state)) return { dataDir };
  return { dataDir, ...(JSON.parse(fs.readFileSync(state, 'utf8')) as { accountKey: string; secret: string }) };
}

/** Create a docsearch project through the app's HTTP layer (inject: no socket needed). */
export async function createBenchProject(app: BenchApp, name: string): Promise<{ projectId: string; apiKey: string; namespace: string }> {
  const res = await app.handle.http.inject({
    method: 'POST', url: '/v3/projects',
    headers: { authorization: `Bearer ${app.accountKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name, product: 'docsearch' }),
  });
  if (res.statusCode !== 201) throw new Error(`create project: ${res.statusCode} ${res.body}`);
  const body = res.json() as { id: string; api_key: string; namespace: string };
  return { projectId: body.id, apiKey: body.api_key, namespace: body.namespace };
}
