// The client packages as a user gets them: scripts/pack-packages.ts builds @docsearch/sdk, @docsearch/mcp
// and @docsearch/cli to JavaScript with declarations and packs each; the three tarballs are installed
// into an empty directory outside the repository (dependencies from the npm cache or registry, no install
// scripts), and used there with plain `node` against a running service: an ESM script through the SDK,
// the `docsearch` CLI, and `docsearch-mcp` driven by the official MCP client over stdio. The SDK's
// declarations compile under a user's strict tsconfig with moduleResolution nodenext and bundler.
// Runs alone: packs and installs every client package (npm, CPU-heavy).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, createProject, repoRoot, type TestServer } from './helpers/index.ts';
import { packPackages } from '../scripts/pack-packages.ts';

const run = promisify(execFile);

const NOTE = '# Lichen survey\n\nThe 2024 survey counted 312 lichen species on the granite outcrops of the northern ridge.\n';
const QUERY = 'how many lichen species did the survey count';

const SDK_SCRIPT = `import { DocsearchClient } from '@docsearch/sdk';
const ds = new DocsearchClient({ baseUrl: process.env.DOCSEARCH_URL, apiKey: process.env.DOCSEARCH_API_KEY });
const job = await ds.ingest(Buffer.from(process.env.NOTE), { filename: 'survey.md' });
const done = await ds.waitForJob(job.job_id);
const hits = await ds.search({ query: process.env.QUERY, format: 'json' });
console.log(JSON.stringify({ status: done.status, doc_id: done.doc_id, top: hits.results[0]?.doc_id }));
`;

const USER_CODE = `import { DocsearchClient, DocsearchError, type SearchRequest, type PublicJob } from '@docsearch/sdk';
const ds = new DocsearchClient({ baseUrl: 'http://localhost:8080', apiKey: 'svc_prod_ds_x' });
const request: SearchRequest = { query: 'q', format: 'json' };
export async function top(): Promise<string | undefined> {
  const res = await ds.search({ ...request, format: 'json' });
  return res.results[0]?.doc_id;
}
export const isError = (e: unknown): e is DocsearchError => e instanceof DocsearchError;
export type Job = PublicJob;
`;

describe('client packages installed outside the repository', () => {
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-install-'));
    const tarballs = packPackages(path.join(dir, 'tarballs'));
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'user-app', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...Object.values(tarballs)], { cwd: app });
    server = await startTestServer({ backend: 'sqlite' });
    const { apiKey } = await createProject(server);
    // Plain node: no TypeScript loader inherited from the test runner.
    const { NODE_OPTIONS: _drop, ...rest } = process.env as Record<string, string>;
    env = { ...rest, DOCSEARCH_URL: server.baseUrl, DOCSEARCH_API_KEY: apiKey, NOTE, QUERY };
  });
  after(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const app = () => path.join(dir, 'app');

  test('the packages hold JavaScript and declarations, no TypeScript source', () => {
    for (const name of ['sdk', 'mcp', 'cli']) {
      const pkg = path.join(app(), 'node_modules', '@docsearch', name);
      const files = fs.readdirSync(pkg, { recursive: true }).map(String);
      assert.ok(files.some((f) => f.endsWith('.js')) && files.some((f) => f.endsWith('.d.ts')), `${name}: ${files.join(' ')}`);
      assert.ok(!files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), `${name} ships TypeScript source`);
      assert.ok(!fs.realpathSync(pkg).startsWith(repoRoot), `${name} is a copy, not a link into the repository`);
    }
  });

  test('an ESM script uses the SDK with plain node: ingest, wait, search', async () => {
    fs.writeFileSync(path.join(app(), 'walkthrough.mjs'), SDK_SCRIPT);
    const { stdout } = await run(process.execPath, ['walkthrough.mjs'], { cwd: app(), env });
    const r = JSON.parse(stdout);
    assert.equal(r.status, 'done');
    assert.equal(r.top, r.doc_id);
  });

  test('the docsearch CLI runs with plain node', async () => {
    const bin = path.join(app(), 'node_modules', '.bin', 'docsearch');
    const { stdout } = await run(process.execPath, [bin, 'search', QUERY, '--json'], { cwd: app(), env });
    assert.match(stdout, /312 lichen species/);
  });

  test('docsearch-mcp runs with plain node, driven by the official MCP client over stdio', async () => {
    const bin = path.join(app(), 'node_modules', '.bin', 'docsearch-mcp');
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin], env, cwd: app(), stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'search') && tools.some((t) => t.name === 'ingest'), tools.map((t) => t.name).join(' '));
      const answer = await client.callTool({ name: 'search', arguments: { query: QUERY } });
      assert.ok(!answer.isError);
      assert.match((answer.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), /312 lichen species/);
    } finally {
      await client.close();
    }
  });

  test('the SDK\'s types compile under a user\'s strict tsconfig (nodenext and bundler)', async () => {
    fs.writeFileSync(path.join(app(), 'user.ts'), USER_CODE);
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const [module, moduleResolution] of [['nodenext', 'nodenext'], ['esnext', 'bundler']]) {
      fs.writeFileSync(path.join(app(), 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          strict: true, module, moduleResolution, target: 'es2022', noEmit: true, skipLibCheck: false,
          types: ['node'], typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
        },
        include: ['user.ts'],
      }));
      const r = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app(), env }).catch((e: { stdout: string }) => e);
      assert.equal(r.stdout, '', `${moduleResolution}: ${r.stdout}`);
    }
  });
});
