// Regenerates src/generated/openapi.ts (the SDK's request/response types) from the service's own OpenAPI
// document with openapi-typescript. The document comes from the running app: from DOCSEARCH_URL when it
// is set (e.g. `DOCSEARCH_URL=http://127.0.0.1:8080 npm run generate -w @docsearch/sdk`), otherwise the
// script builds the application in-process on a temporary data directory and asks it. The generated file
// is committed; test/generated-types.test.ts fails when it no longer matches the service.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApiTypes } from './render-types.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'src', 'generated', 'openapi.ts');

/** The OpenAPI document of a running service, or of one built here for the occasion. */
async function fetchDocument(): Promise<unknown> {
  const url = process.env.DOCSEARCH_URL;
  if (url) {
    const res = await fetch(`${url.replace(/\/+$/, '').replace(/\/v3$/, '')}/v3/openapi.json`);
    if (!res.ok) throw new Error(`GET /v3/openapi.json answered ${res.status}`);
    return res.json();
  }
  const { createApp } = await import('../../../src/app.ts');
  const { loadConfig } = await import('../../../src/internal/config.ts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-openapi-'));
  const handle = await createApp(loadConfig({ DOCSEARCH_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: false });
  try {
    const res = await handle.http.inject({ method: 'GET', url: '/v3/openapi.json' });
    return res.json();
  } finally {
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const source = await renderOpenApiTypes(await fetchDocument());
fs.writeFileSync(out, source);
console.log(`wrote ${path.relative(process.cwd(), out)} (${source.length} bytes)`);
