// The OpenAPI document at /v3/openapi.json and the API reference UI at /v3/docs: every documented
// operation has a unique camelCase operationId (the SDK's generated types and the MCP tools are keyed by
// them), the document lints clean with Redocly's `recommended` ruleset, and the reference UI loads only
// assets the service itself serves (no CDN, so it works on an offline host).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startTestServer, type TestServer } from './helpers/index.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The operationIds the SDK, CLI and MCP server rely on: renaming one is a breaking change. */
const STABLE_IDS = [
  'login', 'createProject', 'listProjects', 'deleteProject',
  'ingestDocument', 'search', 'searchInDoc', 'listDocuments', 'getDocument', 'deleteDocument', 'listAttributes',
  'createBucketIngest', 'getBucketIngest', 'pauseBucketIngest', 'resumeBucketIngest', 'cancelBucketIngest',
  'listBucketIngestFailures', 'retryBucketIngestFailed', 'updateBucketIngestCredentials',
  'getJobStatus', 'deleteJob', 'streamJobStatus', 'getWebhookSecret', 'rotateWebhookSecret', 'listJobs', 'getCurrentProject',
  'createEvaluation', 'getEvaluation', 'listEvaluations', 'deleteEvaluation',
  'describeIndex', 'reindex',
];

describe('OpenAPI document and reference UI', () => {
  let server: TestServer;
  let doc: any;

  before(async () => {
    server = await startTestServer({ workers: false });
    const res = await fetch(`${server.v3Url}/openapi.json`);
    assert.equal(res.status, 200);
    doc = await res.json();
  });
  after(async () => server?.close());

  test('every operation has a unique camelCase operationId and a tag, and the stable set is complete', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const id = item[method].operationId;
        assert.ok(typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id), `${method.toUpperCase()} ${path}: operationId ${id}`);
        ids.push(id);
        assert.ok(item[method].tags?.length === 1, `${method.toUpperCase()} ${path}: one tag groups it in /v3/docs`);
      }
    }
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(', ')}`);
    assert.deepEqual([...ids].sort(), [...STABLE_IDS].sort());
    assert.ok(Object.keys(doc.paths).every((p) => p.startsWith('/v3/')), 'only the /v3 copies are documented');
  });

  test('the document lints clean (Redocly recommended ruleset)', async () => {
    // info-license is off: the project publishes no licence, and inventing one in the API document
    // would be wrong. Every other recommended rule applies at its default severity.
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off' } });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    assert.deepEqual(listed, []);
  });

  test('/v3/docs serves Swagger UI whose every asset comes from the service itself', async () => {
    const res = await fetch(`${server.baseUrl}/v3/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(refs.some((r) => r.endsWith('swagger-ui-bundle.js')), html);
    for (const ref of refs) {
      assert.ok(ref.startsWith('/v3/docs/'), `asset from elsewhere: ${ref}`);
      const asset = await fetch(server.baseUrl + ref);
      assert.equal(asset.status, 200, ref);
      assert.ok((await asset.arrayBuffer()).byteLength > 0, ref);
    }
    const init = await (await fetch(`${server.baseUrl}/v3/docs/static/swagger-initializer.js`)).text();
    const code = init.replace(/\/\/ .*$/gm, ''); // line comments may cite a web page; code must not load one
    assert.doesNotMatch(code, /https?:\/\//, 'the initializer loads nothing by absolute URL');
    const json = await (await fetch(`${server.baseUrl}/v3/docs/json`)).json();
    assert.deepEqual(Object.keys(json.paths).sort(), Object.keys(doc.paths).sort());
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  });
});
