// Test-suite preflight, run by `npm test` (scripts/run-tests.mjs) before any test: the
// integration tests start a real PostgreSQL server and nginx, OCR pictures in six languages and drive the
// web console in headless Chromium (test/console.test.ts), so a
// fresh machine needs Debian packages that `npm install` cannot bring. When something is missing and we
// are root on a machine with apt-get, it is installed (`apt-get update`, then `apt-get install`); otherwise
// the run stops at once, printing what is missing and the one command that installs it. When nothing is
// missing no package tool is called, so the check costs one `tesseract --list-langs` (~50 ms).
// DOCSEARCH_TEST_SKIP_SETUP=1 skips all of this.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { installedLanguages } from '../src/ingest/parse/ocr-tesseract.ts';
import { missingOcr } from '../src/ingest/parse/ocr-languages.ts';

/** Languages the OCR tests read (src/ingest/parse/ocr.test.ts, test/pdf-understanding.test.ts …). */
export const TEST_OCR_LANGUAGES = ['eng', 'chi_sim', 'chi_sim_vert', 'jpn', 'jpn_vert', 'kor'];

/** What the probe found on this machine; tessLangs is null when tesseract is not installed. */
export interface Probe {
  postgres: boolean;
  nginx: boolean;
  /** Debian's chromium at CHROMIUM_PATH (the console test drives it through playwright-core). */
  chromium: boolean;
  tessLangs: ReadonlySet<string> | null;
}

/** One missing piece: what it is (for people) and the Debian packages that add it. */
export interface Missing {
  what: string;
  packages: string[];
}

/** Where the console test expects the browser (Debian's `chromium` package); playwright never downloads one. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const isExe = (f: string) => { try { fs.accessSync(f, fs.constants.X_OK); return fs.statSync(f).isFile(); } catch { return false; } };
const onPath = (name: string, env: NodeJS.ProcessEnv) =>
  [...(env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/sbin', '/sbin'].some((d) => isExe(path.join(d, name)));

/**
 * Look for what the tests need, the way test/helpers find it: PostgreSQL server binaries (initdb,
 * pg_ctl) in $PG_BIN_DIR, /usr/lib/postgresql/<v>/bin or on PATH; nginx in /usr/sbin or on PATH;
 * tesseract ($DOCSEARCH_TESSERACT_BIN or on PATH) and its installed languages; chromium at CHROMIUM_PATH.
 */
export async function probe(env: NodeJS.ProcessEnv = process.env): Promise<Probe> {
  const pgDirs = env.PG_BIN_DIR ? [env.PG_BIN_DIR] : [];
  try {
    pgDirs.push(...fs.readdirSync('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch { /* not Debian-style */ }
  const pgIn = (dir: string) => isExe(path.join(dir, 'initdb')) && isExe(path.join(dir, 'pg_ctl'));
  const postgres = pgDirs.some(pgIn) || (onPath('initdb', env) && onPath('pg_ctl', env));
  const langs = await installedLanguages(true);
  return { postgres, nginx: onPath('nginx', env), chromium: isExe(CHROMIUM_PATH), tessLangs: langs.size ? langs : null };
}

/**
 * The missing pieces and their Debian packages (empty when everything is there).
 * @param nginxPackage package that provides nginx (nginx-light where it exists, see nginxPackageName())
 */
export function missingPieces(p: Probe, nginxPackage = 'nginx-light'): Missing[] {
  const out: Missing[] = [];
  if (!p.postgres) out.push({ what: 'PostgreSQL server binaries (initdb, pg_ctl)', packages: ['postgresql'] });
  if (!p.nginx) out.push({ what: 'nginx', packages: [nginxPackage] });
  if (!p.chromium) out.push({ what: `chromium (${CHROMIUM_PATH}, for the web console test)`, packages: ['chromium'] });
  const ocr = missingOcr(TEST_OCR_LANGUAGES, p.tessLangs);
  if (ocr.tesseract) out.push({ what: 'tesseract (OCR engine)', packages: ['tesseract-ocr'] });
  if (ocr.langs.length) out.push({ what: `Tesseract language data: ${ocr.langs.join(', ')}`, packages: ocr.packages.filter((x) => x !== 'tesseract-ocr') });
  return out;
}

/** The one command that installs `packages` (with sudo when not root). */
export function installCommand(packages: string[], root: boolean): string {
  const sudo = root ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/** What to do: nothing, install (root with apt-get), or stop with a message. */
export function decide(missing: Missing[], host: { root: boolean; apt: boolean }): 'ok' | 'install' | 'stop' {
  if (!missing.length) return 'ok';
  return host.root && host.apt ? 'install' : 'stop';
}

/** The message printed when the run stops: the missing list, the command, and the opt-out. */
export function stopMessage(missing: Missing[], host: { root: boolean; apt: boolean }): string {
  const packages = missing.flatMap((m) => m.packages);
  const lines = ['npm test: the tests need software that is not installed:', ...missing.map((m) => `  - ${m.what}`), ''];
  if (host.apt) lines.push('Install it with:', `  ${installCommand(packages, host.root)}`);
  else lines.push('No apt-get here. On Debian/Ubuntu this is:', `  ${installCommand(packages, false)}`,
    'elsewhere install the same software (PostgreSQL server, nginx, Chromium, Tesseract 5 with those languages).');
  lines.push('', 'then run npm test again (DOCSEARCH_TEST_SKIP_SETUP=1 skips this check; the tests that need it then fail).');
  return lines.join('\n');
}

/** nginx-light where the distribution still has it (Debian ≤ 12, Ubuntu ≤ 24.04), else nginx. */
async function nginxPackageName(): Promise<string> {
  const known = await run('apt-cache', ['show', '--no-all-versions', 'nginx-light'], 'ignore');
  return known === 0 ? 'nginx-light' : 'nginx';
}

function run(cmd: string, args: string[], stdio: 'inherit' | 'ignore'): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', stdio, stdio], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    child.on('error', () => resolve(127));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/**
 * Check, and install or stop.
 * @returns true when the tests can run (nothing missing, or installed now); false after printing why not
 */
export async function preflight(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env.DOCSEARCH_TEST_SKIP_SETUP === '1') return true;
  const host = { root: process.getuid?.() === 0, apt: process.platform === 'linux' && onPath('apt-get', env) };
  let missing = missingPieces(await probe(env));
  const action = decide(missing, host);
  if (action === 'ok') return true;
  if (action === 'stop') {
    console.error(stopMessage(missing, host));
    return false;
  }
  if (await run('apt-get', ['update'], 'inherit') !== 0) console.error('preflight: apt-get update failed; trying the install anyway');
  missing = missingPieces(await probe(env), await nginxPackageName());
  const packages = missing.flatMap((m) => m.packages);
  console.error(`preflight: installing ${packages.join(' ')}`);
  // Wait for the dpkg lock rather than fail when another apt-get (another test run) holds it.
  const code = await run('apt-get', ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=300', ...packages], 'inherit');
  const still = code === 0 ? missingPieces(await probe(env)) : missing;
  if (still.length) console.error(`preflight: apt-get install ${code === 0 ? 'left things missing' : `failed (exit ${code})`}\n${stopMessage(still, host)}`);
  return still.length === 0;
}
