// The test-suite preflight: what counts as missing, which packages fix it, and when it installs
// versus stops with the command. The probe itself runs against this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { CHROMIUM_PATH, decide, installCommand, missingPieces, preflight, probe, stopMessage, TEST_OCR_LANGUAGES } from './preflight.ts';

const all = new Set([...TEST_OCR_LANGUAGES, 'deu']);

test('nothing missing: no action', () => {
  const missing = missingPieces({ postgres: true, nginx: true, chromium: true, tessLangs: all });
  assert.deepEqual(missing, []);
  assert.equal(decide(missing, { root: false, apt: false }), 'ok');
});

test('each missing piece maps to its Debian packages', () => {
  const missing = missingPieces({ postgres: false, nginx: false, chromium: false, tessLangs: null }, 'nginx');
  assert.deepEqual(missing.flatMap((m) => m.packages), [
    'postgresql', 'nginx', 'chromium', 'tesseract-ocr', 'tesseract-ocr-eng', 'tesseract-ocr-chi-sim', 'tesseract-ocr-chi-sim-vert',
    'tesseract-ocr-jpn', 'tesseract-ocr-jpn-vert', 'tesseract-ocr-kor',
  ]);
  const langsOnly = missingPieces({ postgres: true, nginx: true, chromium: true, tessLangs: new Set(['eng', 'jpn', 'kor']) });
  assert.equal(langsOnly.length, 1);
  assert.match(langsOnly[0].what, /chi_sim, chi_sim_vert, jpn_vert/);
  assert.deepEqual(langsOnly[0].packages, ['tesseract-ocr-chi-sim', 'tesseract-ocr-chi-sim-vert', 'tesseract-ocr-jpn-vert']);
});

test('installs only as root with apt-get; otherwise stops with the list and one command', () => {
  const missing = missingPieces({ postgres: true, nginx: false, chromium: true, tessLangs: all });
  assert.equal(decide(missing, { root: true, apt: true }), 'install');
  assert.equal(decide(missing, { root: false, apt: true }), 'stop');
  assert.equal(decide(missing, { root: true, apt: false }), 'stop');
  const msg = stopMessage(missing, { root: false, apt: true });
  assert.match(msg, /- nginx\n/);
  assert.ok(msg.includes(installCommand(['nginx-light'], false)), msg);
  assert.equal(installCommand(['a', 'b'], false), 'sudo apt-get update && sudo apt-get install -y --no-install-recommends a b');
  assert.match(stopMessage(missing, { root: false, apt: false }), /No apt-get here/);
});

test('probe agrees with the binaries on this machine', async () => {
  const p = await probe();
  const tess = spawnSync('tesseract', ['--list-langs'], { encoding: 'utf8' });
  assert.equal(p.tessLangs !== null, tess.status === 0);
  if (p.tessLangs) assert.equal(p.tessLangs.has('eng'), /^eng$/m.test(tess.stdout));
  assert.equal(p.chromium, spawnSync(CHROMIUM_PATH, ['--version']).status === 0);
});

test('opt-out skips everything; a non-root user with nothing installed is stopped within seconds', async () => {
  assert.equal(await preflight({ DOCSEARCH_TEST_SKIP_SETUP: '1' }), true);
  // Run as a child with an empty PATH and no tesseract: it must stop (as root too: no apt-get on PATH).
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e',
    `import('${path.join(import.meta.dirname, 'preflight.ts')}').then(async (m) => process.exit(await m.preflight({ PATH: '/nonexistent' }) ? 0 : 1))`],
  { encoding: 'utf8', env: { ...process.env, DOCSEARCH_TESSERACT_BIN: '/nonexistent/tesseract' } });
  assert.ok(Date.now() - started < 10_000);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /tesseract \(OCR engine\)/);
  assert.match(r.stderr, /apt-get install -y --no-install-recommends .*tesseract-ocr-kor/);
});
