// The docsearch MCP tools driven by the MCP SDK's own Client against the real service, over both
// transports: stdio (the docsearch-mcp bin as a child process, speaking to the service through the SDK)
// and Streamable HTTP (the service's /mcp, same bearer keys as the API). An agent's flow: list tools,
// ingest a real PDF waiting on the job stream with progress notifications, search it and answer from
// the context, then the document tools and typed errors (unknown arguments included); and how an MCP host
// learns to authenticate from a 401 (RFC 9728 protected-resource metadata).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { newProject, PAPER, sharedPdf, startTestServer, type TestServer } from '../../sdk/test/support.ts';

const BIN = fileURLToPath(new URL('../bin/docsearch-mcp.mjs', import.meta.url));
const TOOLS = ['delete_document', 'evaluate_search', 'get_document', 'ingest', 'job_status', 'list_attributes', 'list_documents', 'search', 'search_in_doc'];

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
const text = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** An MCP client connected to the service's /mcp with a new project's key. */
async function connectHttp(server: TestServer): Promise<Client> {
  const { apiKey } = await newProject(server);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  }));
  return client;
}

/** MCP progress must increase from one notification to the next. */
function assertIncreasing(progress: Progress[]): void {
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress, `progress ${progress.map((p) => p.progress).join(', ')}`);
  }
}

/** The agent flow shared by both transports. `ingestArgs` says how this transport hands over the PDF. */
async function agentFlow(client: Client, ingestArgs: Record<string, unknown>): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  const search = tools.find((t) => t.name === 'search')!;
  for (const field of ['query', 'doc_filter', 'doc_ids', 'exclude_doc_ids', 'attribute_filters', 'unencrypted_strings_match', 'return_assets',
    'return_page_images', 'format', 'min_relevance', 'min_top_relevance', 'target_tokens', 'max_tokens', 'expand_tightness', 'retrieval_tier',
    'premium', 'meta_tags_any', 'meta_tags_all', 'meta_int_1_gte', 'meta_int_1_lte', 'meta_int_2_gte', 'meta_int_2_lte']) {
    assert.ok(field in (search.inputSchema.properties ?? {}), `search has ${field}`);
  }
  for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: unknown arguments are refused`);
  assert.match(search.description ?? '', /has_any_tokens/);
  assert.match(search.description ?? '', /\[\]string: contains contains_any eq in/);

  const progress: Progress[] = [];
  const ingested = await client.callTool({ name: 'ingest', arguments: { ...ingestArgs, attributes: { year: 2021 } } }, undefined, {
    onprogress: (p) => { progress.push(p); },
  });
  assert.ok(!ingested.isError, text(ingested));
  const docId = /doc_id ([0-9a-f-]{36})/.exec(text(ingested))?.[1];
  assert.ok(docId, text(ingested));
  // The last notification can be handled a tick after the result on a loaded machine (seen once in a full
  // run at load ≈ 15): give it a moment; a notification that never comes still fails below.
  for (let i = 0; i < 20 && progress.at(-1)?.progress !== 100; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(progress.length >= 1, 'progress notifications while the job ran');
  assert.deepEqual(progress.at(-1), { progress: 100, total: 100, message: `${progress.at(-1)!.message}` });
  assert.match(progress.at(-1)!.message!, new RegExp(`: done \\(doc_id ${docId}\\)$`));
  assertIncreasing(progress);

  const answer = await client.callTool({ name: 'search', arguments: { query: PAPER.query } });
  assert.ok(!answer.isError, text(answer));
  assert.match(text(answer), PAPER.expect);
  assert.match(text(answer), /\[docsearch: [1-9]\d* result\(s\)/);
  const hits = JSON.parse(text(await client.callTool({ name: 'search', arguments: { query: PAPER.query, format: 'json', attribute_filters: [{ attr: 'year', op: 'eq', value: 2021 }] } })));
  assert.equal(hits.results[0].doc_id, docId);
  const filteredOut = await client.callTool({ name: 'search', arguments: { query: PAPER.query, attribute_filters: [{ attr: 'year', op: 'lt', value: 2000 }] } });
  assert.match(text(filteredOut), /No passage matched/);
  const badOp = await client.callTool({ name: 'search', arguments: { query: PAPER.query, attribute_filters: [{ attr: 'year', op: 'glob', value: '2*' }] } });
  assert.equal(badOp.isError, true);
  assert.match(text(badOp), /^unsupported_operator \(HTTP 400\)/);
  // An argument the tool does not have is an error naming it, not silently dropped (it would run unfiltered).
  const unknownArg = await client.callTool({ name: 'search', arguments: { query: PAPER.query, filter: 'year gte 2010' } });
  assert.equal(unknownArg.isError, true);
  assert.match(text(unknownArg), /Input validation error.*"filter"/s);
  const unknownClauseKey = await client.callTool({ name: 'search', arguments: { query: PAPER.query, attribute_filters: [{ attr: 'year', op: 'eq', value: 2021, negate: true }] } });
  assert.equal(unknownClauseKey.isError, true);
  assert.match(text(unknownClauseKey), /"negate"/);
  assert.equal((await client.callTool({ name: 'list_documents', arguments: { limit: 5 } })).isError, true);
  const inDoc = await client.callTool({ name: 'search_in_doc', arguments: { query: PAPER.query, doc_filter: docId } });
  assert.match(text(inDoc), PAPER.expect);

  const list = JSON.parse(text(await client.callTool({ name: 'list_documents', arguments: {} })));
  assert.deepEqual(list.documents.map((d: { doc_id: string }) => d.doc_id), [docId]);
  assert.equal(JSON.parse(text(await client.callTool({ name: 'get_document', arguments: { doc_id: docId } }))).doc_id, docId);
  assert.deepEqual(JSON.parse(text(await client.callTool({ name: 'list_attributes', arguments: {} }))).attributes, [{ name: 'year', type: 'int' }]);
  const job = JSON.parse(text(await client.callTool({ name: 'job_status', arguments: { job_id: list.documents[0].source_job_id } })));
  assert.equal(job.status, 'done');
  const missing = await client.callTool({ name: 'get_document', arguments: { doc_id: 'nope' } });
  assert.equal(missing.isError, true);
  assert.match(text(missing), /\(HTTP 404\)/);
  const deleted = JSON.parse(text(await client.callTool({ name: 'delete_document', arguments: { doc_id: docId } })));
  assert.equal(deleted.doc_id, docId);
}

describe('docsearch MCP server', () => {
  let server: TestServer;

  before(async () => { server = await startTestServer(); });
  after(async () => server?.close());

  test('stdio: the docsearch-mcp bin, with a file path', async () => {
    const { apiKey } = await newProject(server);
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN],
      env: { ...process.env as Record<string, string>, DOCSEARCH_URL: server.baseUrl, DOCSEARCH_API_KEY: apiKey },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, 'docsearch');
      await agentFlow(client, { path: PAPER.file });
    } finally {
      await client.close();
    }
  });

  test('Streamable HTTP at /mcp: project key, file as base64 (no server paths)', async () => {
    const client = await connectHttp(server);
    try {
      const ingest = (await client.listTools()).tools.find((t) => t.name === 'ingest')!;
      assert.ok(!('path' in (ingest.inputSchema.properties ?? {})), 'the HTTP endpoint cannot read the server\'s disk');
      const sneaky = await client.callTool({ name: 'ingest', arguments: { path: '/etc/passwd' } });
      assert.equal(sneaky.isError, true);
      await agentFlow(client, { content_base64: fs.readFileSync(PAPER.file).toString('base64'), filename: 'paper.pdf' });
    } finally {
      await client.close();
    }
  });

  test('progress of a 14-page PDF moves with the pages parsed and chunks embedded, and ends with done', async () => {
    const client = await connectHttp(server);
    try {
      const progress: Progress[] = [];
      const t0 = Date.now();
      const at: number[] = [];
      const r = await client.callTool({
        name: 'ingest', arguments: { content_base64: fs.readFileSync(sharedPdf('tracemonkey.pdf')).toString('base64'), filename: 'tracemonkey.pdf' },
      }, undefined, { onprogress: (p) => { progress.push(p); at.push(Date.now() - t0); } });
      assert.ok(!r.isError, text(r));
      for (let i = 0; i < 20 && progress.at(-1)?.progress !== 100; i++) await new Promise((res) => setTimeout(res, 50));
      console.log(`# ${progress.length} notifications in ${Date.now() - t0} ms: ${progress.map((p, i) => `${at[i]}ms ${p.progress} ${p.message}`).join(' | ')}`);
      assertIncreasing(progress);
      const pages = progress.map((p) => /parsing page (\d+) of 14$/.exec(p.message ?? '')?.[1]).filter(Boolean).map(Number);
      assert.ok(pages.length >= 1 && pages.every((n, i) => i === 0 || n > pages[i - 1]), `pages parsed: ${pages.join(', ')}`);
      assert.ok(progress.some((p) => /embedding chunk \d+ of \d+$|indexing \d+ chunks$/.test(p.message ?? '')), 'the embedding or indexing stage is reported');
      assert.ok(new Set(progress.map((p) => p.progress)).size >= 4, 'at least queued/parsing/embedding-or-indexing/done');
      assert.deepEqual(progress.at(-1)!.progress, 100);
      assert.match(progress.at(-1)!.message!, /^tracemonkey\.pdf: done \(doc_id [0-9a-f-]{36}\)$/);
      // The job's status keeps the last progress: 14 of 14 pages, every chunk embedded.
      const job = JSON.parse(text(await client.callTool({ name: 'job_status', arguments: { job_id: /job ([0-9a-f-]{36})/.exec(text(r))![1] } })));
      assert.equal(job.progress.pages_parsed, 14);
      assert.equal(job.progress.pages_total, 14);
      assert.equal(job.progress.chunks_embedded, job.progress.chunks_total);
    } finally {
      await client.close();
    }
  });

  test('Streamable HTTP at /mcp: account key + X-Project-ID works; GET/DELETE 405; no or a wrong key is refused with 401', async () => {
    const { projectId } = await newProject(server);
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${server.accountKey}`, 'x-project-id': projectId } },
    }));
    const list = JSON.parse(text(await client.callTool({ name: 'list_documents', arguments: {} })));
    assert.equal(list.total_documents, 0);
    await client.close();
    // Stateless endpoint: no server-initiated stream, no session to delete.
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.baseUrl}/mcp`, { method, headers: { authorization: `Bearer ${server.accountKey}`, 'x-project-id': projectId, accept: 'text/event-stream' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.equal((await res.json()).code, 'method_not_allowed');
    }
    for (const headers of [{}, { authorization: 'Bearer svc_prod_ds_wrong' }] as Record<string, string>[]) {
      const res = await fetch(`${server.baseUrl}/mcp`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      assert.equal(res.status, 401);
      assert.match((await res.json()).code, /^[a-z_]+$/);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="[^"]+"/);
      assert.equal(/error="invalid_token"/.test(res.headers.get('www-authenticate')!), 'authorization' in headers);
    }
  });

  test('Streamable HTTP at /mcp: a host discovers how to authenticate from the 401 (RFC 9728 metadata), then a bearer key works', async () => {
    const mcpUrl = new URL(`${server.baseUrl}/mcp`);
    // The official client without credentials: refused with 401.
    const anonymous = new Client({ name: 'test-host', version: '1.0.0' });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(mcpUrl)), /401|nauthorized/);
    // What a host does next: read resource_metadata from the challenge and fetch the document.
    const res = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(res.status, 401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(res);
    assert.equal(resourceMetadataUrl?.href, `${server.baseUrl}/.well-known/oauth-protected-resource`);
    const metadata = await discoverOAuthProtectedResourceMetadata(mcpUrl, { resourceMetadataUrl });
    assert.equal(metadata.resource, mcpUrl.href);
    assert.deepEqual(metadata.bearer_methods_supported, ['header']);
    assert.equal(metadata.authorization_servers, undefined, 'no OAuth server: bearer API keys are the way in');
    // RFC 9728 §3.1 location for a resource with a path serves the same document.
    const byPath = await (await fetch(`${server.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.deepEqual(byPath, metadata);
    // The host then sends the configured key.
    const { apiKey } = await newProject(server);
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
    assert.equal(JSON.parse(text(await client.callTool({ name: 'list_documents', arguments: {} }))).total_documents, 0);
    await client.close();
  });
});
