// The API process (DOCSEARCH_ROLE=api, and the main thread of role `all`, which parses in child
// processes) must not load the parser libraries it never runs. A fresh Node process imports the
// application (src/app.ts, what `npm start` builds) with a module-loading hook that records every file
// loaded; no parser module or parser library may be among them. Then parsing one Markdown file loads
// the Markdown parser but still no PDF or Office library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const repoRoot = path.resolve(import.meta.dirname, '..');
const PARSER_LIBRARIES = /node_modules\/(pdfjs-dist|mammoth|exceljs|sharp|@napi-rs\/canvas|jszip|mailparser|papaparse|marked|rtf-stream-parser|@mixmark-io\/domino|turndown)\//;
const PARSER_MODULES = /src\/ingest\/parse\/(parse-[\w-]+|pdf-[\w-]+|ocr|ocr-image-prep|ocr-runs)\.ts$/; // ocr-languages/-tesseract: start-up check

/** Files loaded by a fresh process running `script` (an ES module body) in the repository. */
async function loadedBy(script: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-parsers-'));
  try {
    const trace = path.join(dir, 'loaded.txt');
    fs.writeFileSync(path.join(dir, 'hooks.mjs'), `import fs from 'node:fs';
export async function load(url, context, next) { fs.appendFileSync(${JSON.stringify(trace)}, url + '\\n'); return next(url, context); }\n`);
    fs.writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});\n`);
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', path.join(dir, 'register.mjs'), '--input-type=module', '-e', script], { cwd: repoRoot, timeout: 120_000 });
    return fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('importing the application loads no parser and no parser library', async () => {
  const loaded = await loadedBy(`await import('./src/app.ts');`);
  assert.ok(loaded.some((u) => u.endsWith('/src/app.ts')), 'the trace sees the application');
  assert.ok(loaded.some((u) => u.endsWith('/src/ingest/parse/format.ts')), 'format detection is loaded');
  assert.deepEqual(loaded.filter((u) => PARSER_LIBRARIES.test(u) || PARSER_MODULES.test(u)), []);
});

test('parsing a Markdown file loads its parser only', async () => {
  const loaded = await loadedBy(`const { parseDocument } = await import('./src/ingest/parse/index.ts');
await parseDocument({ data: Buffer.from('# Title\\n\\nSome text.'), filename: 'a.md' });`);
  assert.ok(loaded.some((u) => u.endsWith('/src/ingest/parse/parse-markdown.ts')));
  assert.deepEqual(loaded.filter((u) => /pdfjs-dist|mammoth|exceljs|parse-pdf|parse-docx/.test(u)), []);
});
