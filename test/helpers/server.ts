// Integration-test harness: starts the real application (createApp from src/app.ts, the same code
// `npm start` runs) on 127.0.0.1 and a free port, with a fresh temp data dir, a known bootstrap account
// key and password, and either SQLite (default) or a fresh database on the process's throwaway
// PostgreSQL server. Tests talk to it over real HTTP.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createApp, type AppHandle } from '../../src/app.ts';
import { loadConfig } from '../../src/internal/config.ts';
import type { Services } from '../../src/services.ts';
import { createTestDatabase } from './postgres.ts';

export type Backend = 'sqlite' | 'postgres';

/** Both control-plane backends, for `for (const backend of BACKENDS)` loops. TEST_BACKENDS=sqlite limits them. */
export const BACKENDS: Backend[] = (process.env.TEST_BACKENDS?.split(',').map((s) => s.trim()).filter(Boolean) as Backend[] | undefined)
  ?? ['sqlite', 'postgres'];

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TestServer {
  /** Server origin, e.g. http://127.0.0.1:41234 — paths are appended in full ('/v3/projects'). */
  baseUrl: string;
  /** Spec `{base_url}`: baseUrl + '/v3'. */
  v3Url: string;
  app: FastifyInstance;
  services: Services;
  /** Everything createApp returned (worker, maintainer, …). */
  handle: AppHandle;
  backend: Backend;
  /** The bootstrap account's key (svc_acc_…), as configured through DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY. */
  accountKey: string;
  /** Bootstrap user's login. */
  email: string;
  password: string;
  dataDir: string;
  /** Stop the server, drop its database (PostgreSQL) and remove its data dir. Idempotent. */
  close(): Promise<void>;
}

/** Shared location of the builtin embedder's converted GloVe cache, so it is built once per checkout. */
const SHARED_MODELS = path.join(repoRoot, '.tmp', 'test-cache', 'models');
const GLOVE_FILE = 'glove-100d.int8.bin';

/** Link the shared GloVe cache into a data dir (when it was built before), so start-up skips the conversion. */
export function seedModelCache(dataDir: string): void {
  const shared = path.join(SHARED_MODELS, GLOVE_FILE);
  if (!fs.existsSync(shared)) return;
  fs.mkdirSync(path.join(dataDir, 'models'), { recursive: true });
  fs.symlinkSync(shared, path.join(dataDir, 'models', GLOVE_FILE));
}

/** Keep the GloVe cache a server built in `dataDir` for the next servers of this checkout. */
export function saveModelCache(dataDir: string): void {
  const built = path.join(dataDir, 'models', GLOVE_FILE);
  const shared = path.join(SHARED_MODELS, GLOVE_FILE);
  try {
    if (fs.existsSync(shared) || !fs.existsSync(built) || fs.lstatSync(built).isSymbolicLink()) return;
    fs.mkdirSync(SHARED_MODELS, { recursive: true });
    const tmp = `${shared}.${process.pid}.tmp`;
    fs.copyFileSync(built, tmp);
    fs.renameSync(tmp, shared);
  } catch { /* a cache miss only costs time */ }
}

/**
 * Start the application for a test.
 * @param opts.backend  'sqlite' (default, or $TEST_BACKEND) or 'postgres'
 * @param opts.env      extra/overriding environment entries for loadConfig (e.g. DOCSEARCH_WORKER_POLL_MS)
 * @param opts.workers  start the background workers (default true)
 */
export async function startTestServer(opts: { backend?: Backend; env?: Record<string, string>; workers?: boolean } = {}): Promise<TestServer> {
  const backend: Backend = opts.backend ?? (process.env.TEST_BACKEND as Backend | undefined) ?? 'sqlite';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-test-'));
  const accountKey = 'svc_acc_' + crypto.randomBytes(32).toString('base64url');
  const email = 'admin@test.invalid';
  const password = crypto.randomBytes(12).toString('base64url');
  const database = backend === 'postgres' ? await createTestDatabase() : undefined;
  seedModelCache(dataDir);
  const env: Record<string, string> = {
    DOCSEARCH_DATA_DIR: dataDir,
    DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_BOOTSTRAP_EMAIL: email,
    DOCSEARCH_BOOTSTRAP_PASSWORD: password,
    DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'),
    DOCSEARCH_WORKER_POLL_MS: '50',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(database ? { DOCSEARCH_DATABASE_URL: database.url } : {}),
    ...opts.env,
  };
  let handle: AppHandle | undefined;
  const cleanup = async () => {
    await handle?.close();
    await database?.drop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    handle = await createApp(loadConfig(env), { logger: process.env.TEST_LOG_LEVEL ? true : false });
    saveModelCache(dataDir);
    await handle.http.listen({ host: '127.0.0.1', port: 0 });
    if (opts.workers !== false) handle.startWorkers();
    handle.startRecovery(); // as src/main.ts does once the process listens
  } catch (err) {
    await cleanup().catch(() => {});
    throw err;
  }
  const { port } = handle.http.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: origin, v3Url: `${origin}/v3`, app: handle.http, services: handle.services, handle, backend,
    accountKey, email, password, dataDir,
    close: () => (closing ??= cleanup()),
  };
}
