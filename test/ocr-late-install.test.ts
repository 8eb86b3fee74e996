// A running service picks up Tesseract installed after it started: OCR availability is asked when a job
// needs it and cached briefly (src/ingest/parse/ocr-tesseract.ts), not once for the life of the parse
// children. "Installing" here is putting an executable at DOCSEARCH_TESSERACT_BIN, which names a path
// that does not exist when the server starts; the executable is a stand-in for tesseract that reports
// English data and reads every picture as one fixed sentence, so the test needs no OCR packages.
// Runs alone: changes which tesseract the server finds while it runs.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, dataPath, ingestFile, waitForJob } from './helpers/api.ts';
import { LANGUAGES_TTL_MS } from '../src/ingest/parse/ocr-tesseract.ts';

/** tesseract's CLI as the OCR code uses it: --list-langs, OSD (--psm 0), and TSV followed by text. */
const FAKE_TESSERACT = `#!/bin/sh
if [ "$1" = "--list-langs" ]; then printf 'List of available languages in "/fake/" (2):\\neng\\nosd\\n'; exit 0; fi
cat > /dev/null
for a in "$@"; do if [ "$a" = "0" ]; then printf 'Script: Latin\\nRotate: 0\\n'; exit 0; fi; done
printf 'level\\tpage_num\\tblock_num\\tpar_num\\tline_num\\tword_num\\tleft\\ttop\\twidth\\theight\\tconf\\ttext\\n'
x=10
for w in Lighthouse keepers logged every passing schooner; do
  printf '5\\t1\\t1\\t1\\t1\\t1\\t%d\\t10\\t90\\t24\\t96\\t%s\\n' $x $w
  x=$((x + 100))
done
printf 'Lighthouse keepers logged every passing schooner\\n'
`;

describe('OCR installed while the service runs', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  let bin: string;
  const saved = process.env.DOCSEARCH_TESSERACT_BIN;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-ocr-late-'));
    bin = path.join(dir, 'tesseract');
    // The parse children inherit the environment; one child, so the second job meets the first one's answer.
    process.env.DOCSEARCH_TESSERACT_BIN = bin;
    server = await startTestServer({ backend: 'sqlite', env: { DOCSEARCH_WORKER_CONCURRENCY: '1' } });
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
  });
  after(async () => {
    await server?.close();
    if (saved === undefined) delete process.env.DOCSEARCH_TESSERACT_BIN;
    else process.env.DOCSEARCH_TESSERACT_BIN = saved;
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a picture fails while tesseract is missing and is read once it is installed, without a restart', async () => {
    const picture = dataPath('docs', 'img', 'tika_testOCR.png');
    const first = await ingestFile(server.baseUrl, key, picture);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const failed = await waitForJob(server.baseUrl, key, (first.body as { job_id: string }).job_id);
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal(failed.error?.code, 'no_extractable_text');
    assert.match(failed.error?.message ?? '', /tesseract|OCR/i);

    fs.writeFileSync(bin, FAKE_TESSERACT, { mode: 0o755 });
    // A missing tesseract is asked about again after LANGUAGES_TTL_MS.missing.
    await new Promise((r) => setTimeout(r, LANGUAGES_TTL_MS.missing + 500));

    const second = await ingestFile(server.baseUrl, key, picture);
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const done = await waitForJob(server.baseUrl, key, (second.body as { job_id: string }).job_id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const hits = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'lighthouse keepers schooner', format: 'json' });
    assert.equal(hits.status, 200, JSON.stringify(hits.body));
    assert.equal((hits.body as { results: Array<{ doc_id: string }> }).results[0]?.doc_id, done.doc_id);
  });
});
