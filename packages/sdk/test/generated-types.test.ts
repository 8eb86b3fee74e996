// The committed src/generated/openapi.ts is what openapi-typescript makes of the running service's
// OpenAPI document today: a route schema change without `npm run generate -w @docsearch/sdk` fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiTypes } from '../scripts/render-types.ts';
import { startTestServer } from './support.ts';

test('generated types match the service\'s /v3/openapi.json', async () => {
  const server = await startTestServer({ workers: false });
  try {
    const doc = await (await fetch(`${server.v3Url}/openapi.json`)).json();
    const fresh = await renderOpenApiTypes(doc);
    const committed = fs.readFileSync(fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url)), 'utf8');
    assert.ok(fresh === committed, 'packages/sdk/src/generated/openapi.ts is stale: run `npm run generate -w @docsearch/sdk`');
  } finally {
    await server.close();
  }
});
