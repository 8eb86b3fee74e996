// Service nodes as real child processes (`node --import tsx src/main.ts`, the code `npm start` runs) for
// the scale-out tests and bench: several API and worker processes over one control plane and
// one shared storage, each with its own role, port and log file, killable with any signal.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class NodeProcess {
  private proc?: ChildProcess;
  /** http://127.0.0.1:<port> (API nodes). */
  readonly origin: string;

  /**
   * @param name  label used for the log file (`<logDir>/<name>.log`)
   * @param role  DOCSEARCH_ROLE
   * @param env   the rest of the environment (shared storage, database, secrets)
   */
  constructor(readonly name: string, readonly role: 'api' | 'worker' | 'all', private readonly env: Record<string, string>, private readonly port: number, private readonly logDir: string) {
    this.origin = `http://127.0.0.1:${port}`;
  }

  get pid(): number {
    return this.proc?.pid ?? -1;
  }

  get logFile(): string {
    return path.join(this.logDir, `${this.name}.log`);
  }

  /** Spawn and wait until it serves (API: /readyz 200; worker: its "docsearch started" log line). @returns ms */
  async start(timeoutMs = 240_000): Promise<number> {
    const t0 = Date.now();
    const fd = fs.openSync(this.logFile, 'a');
    this.proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: repoRoot, stdio: ['ignore', fd, fd],
      env: { ...process.env, LOG_LEVEL: 'info', LANCEDB_LOG: 'error', ...this.env, DOCSEARCH_ROLE: this.role, PORT: String(this.port), HOST: '127.0.0.1' },
    });
    fs.closeSync(fd);
    let exited = false;
    this.proc.once('exit', () => { exited = true; });
    while (Date.now() - t0 < timeoutMs) {
      if (exited) throw new Error(`${this.name} exited during start-up:\n${this.tail()}`);
      if (this.role === 'worker') {
        if (fs.readFileSync(this.logFile, 'utf8').includes('"msg":"docsearch started"')) return Date.now() - t0;
      } else {
        try {
          if ((await fetch(`${this.origin}/readyz`)).status === 200) return Date.now() - t0;
        } catch { /* not listening yet */ }
      }
      await sleep(100);
    }
    throw new Error(`${this.name} did not start within ${timeoutMs} ms:\n${this.tail()}`);
  }

  /** Send `signal` and wait for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill(signal);
    await gone;
  }

  /** The last lines of the log (for failure messages). */
  tail(chars = 3000): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  }
}
