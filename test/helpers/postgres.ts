// A throwaway PostgreSQL server for integration tests (DESIGN.md §2: tests run against SQLite and a real
// PostgreSQL). Started lazily once per test process from the distribution's binaries (Debian's
// `postgresql` package: /usr/lib/postgresql/<ver>/bin), in a temp dir, on 127.0.0.1 and a free port,
// with durability off (fsync, full_page_writes, synchronous_commit) because the data is disposable.
// Every test server gets a fresh database, so tests are isolated. The server is stopped and its dir
// removed when the process exits; dirs left behind by killed processes are cleaned up on the next start.
// initdb refuses to run as root, so under root the server runs as the `postgres` OS user (or `nobody`).
import { execFile, spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const execFileAsync = promisify(execFile);
const DIR_PREFIX = 'docsearch-pg-';

interface RunningServer {
  dir: string;
  port: number;
  child: ChildProcess;
}

let starting: Promise<RunningServer> | undefined;

const isExe = (f: string) => { try { fs.accessSync(f, fs.constants.X_OK); return true; } catch { return false; } };

/**
 * Directory holding `initdb` and `postgres`: $PG_BIN_DIR, else the newest /usr/lib/postgresql/<v>/bin,
 * else `pg_config --bindir`, else the directory of `initdb` on PATH.
 * @throws Error naming what was searched when no PostgreSQL server binaries are installed
 */
export function findPgBinDir(): string {
  const candidates: string[] = [];
  if (process.env.PG_BIN_DIR) candidates.push(process.env.PG_BIN_DIR);
  try {
    const versions = fs.readdirSync('/usr/lib/postgresql').filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch { /* not Debian-style */ }
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch { /* no pg_config */ }
  candidates.push(...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean));
  for (const dir of candidates) {
    if (isExe(path.join(dir, 'initdb')) && isExe(path.join(dir, 'postgres'))) {
      return fs.realpathSync(path.join(dir, 'initdb')).replace(/\/initdb$/, '');
    }
  }
  throw new Error(`PostgreSQL server binaries (initdb, postgres) not found; looked in: ${candidates.join(', ')}. Install the 'postgresql' package or set PG_BIN_DIR.`);
}

/** uid/gid to run the server as: the current user, or `postgres` (else `nobody`) when we are root. */
function serverIdentity(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const passwd = fs.readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':'));
  const entry = passwd.find((f) => f[0] === 'postgres') ?? passwd.find((f) => f[0] === 'nobody');
  if (!entry) throw new Error('running as root and neither a "postgres" nor a "nobody" user exists to run PostgreSQL');
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** Remove server dirs whose owning test process is gone (e.g. killed by a timeout), stopping their server. */
function cleanStale(tmp: string): void {
  for (const name of fs.readdirSync(tmp)) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(tmp, name);
    try {
      const owner = Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8'));
      if (!owner || pidAlive(owner)) continue;
      try {
        const pmPid = Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (pmPid && pidAlive(pmPid)) process.kill(pmPid, 'SIGQUIT');
      } catch { /* server not running */ }
      fs.rmSync(dir, { recursive: true, force: true });
    } catch { /* no owner file yet (being created) or not removable: leave it */ }
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Synchronous sleep (usable in an 'exit' handler). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function stopSync(server: RunningServer): void {
  const pidFile = path.join(server.dir, 'data', 'postmaster.pid');
  try { if (server.child.pid) process.kill(server.child.pid, 'SIGQUIT'); } catch { /* already gone */ }
  for (let i = 0; i < 250 && fs.existsSync(pidFile); i++) sleepSync(20);
  fs.rmSync(server.dir, { recursive: true, force: true });
}

async function connectable(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1000 });
  try { await client.connect(); await client.end(); return true; } catch { await client.end().catch(() => {}); return false; }
}

async function startServer(): Promise<RunningServer> {
  const bin = findPgBinDir();
  const ident = serverIdentity();
  const tmp = ident ? '/tmp' : os.tmpdir();
  cleanStale(tmp);
  const dir = fs.mkdtempSync(path.join(tmp, DIR_PREFIX));
  fs.writeFileSync(path.join(dir, 'owner.pid'), String(process.pid));
  if (ident) fs.chownSync(dir, ident.uid, ident.gid);
  const spawnOpts = { cwd: dir, ...(ident ?? {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' } };
  const data = path.join(dir, 'data');
  try {
    await execFileAsync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], spawnOpts);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const e = err as { stderr?: string; message: string };
    throw new Error(`initdb failed: ${e.stderr || e.message}`);
  }
  let lastLog = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const logFile = path.join(dir, `postgres-${attempt}.log`);
    const logFd = fs.openSync(logFile, 'a');
    const child = spawn(path.join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-k', dir,
      '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off',
      '-c', 'synchronous_commit=off', '-c', 'max_connections=200', '-c', 'shared_buffers=64MB',
    ], { ...spawnOpts, stdio: ['ignore', logFd, logFd], detached: false });
    fs.closeSync(logFd);
    child.unref(); // the server must not keep the test process alive; the exit hook stops it
    let exited = false;
    child.once('exit', () => { exited = true; });
    const deadline = Date.now() + 30_000;
    while (!exited && Date.now() < deadline) {
      if (await connectable(port)) {
        const server = { dir, port, child };
        installExitHooks(server);
        return server;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    try { child.kill('SIGQUIT'); } catch { /* gone */ }
    lastLog = fs.readFileSync(logFile, 'utf8').slice(-2000);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start: ${lastLog}`);
}

function installExitHooks(server: RunningServer): void {
  let done = false;
  const stop = () => { if (!done) { done = true; stopSync(server); } };
  process.once('exit', stop);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => { stop(); process.exit(sig === 'SIGINT' ? 130 : 143); });
  }
}

/**
 * Connection details of this process's PostgreSQL test server, starting it on first use (≈1–2 s).
 * @returns admin URL (database `postgres`, user `postgres`, trust auth)
 */
export async function testPostgresAdminUrl(): Promise<string> {
  starting ??= startServer();
  starting.catch(() => { starting = undefined; });
  const server = await starting;
  return `postgres://postgres@127.0.0.1:${server.port}/postgres`;
}

/**
 * Create a fresh, empty database on the test server.
 * @returns url: postgres:// URL of the new database; drop(): removes it (terminating its connections)
 */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const admin = await testPostgresAdminUrl();
  const name = 'ds_test_' + crypto.randomBytes(6).toString('hex');
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try { await client.query(sql); } finally { await client.end(); }
  };
  await run(`CREATE DATABASE "${name}"`);
  return {
    url: admin.replace(/\/postgres$/, `/${name}`),
    name,
    drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
