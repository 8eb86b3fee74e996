// Throughput of bucket sync through the real service (docs/sync.md): N small text objects in a local
// S3-protocol server (s3rver behind the tests' SigV4 proxy), synced three times into one namespace:
// run 1 ingests every object (all new), run 2 finds every object unchanged (listed, compared, never
// fetched), run 3 follows a rewrite of every object (all changed: fetched, re-indexed, each document
// replaced under its doc_id). Reports objects/s per run (task create -> terminal state) and checks the
// counts. Writes bench/results/bucket-sync.json.
// Run: npx tsx bench/bucket-sync.ts [--objects 1000] [--backend sqlite|postgres] [--workers 2]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, createProject } from '../test/helpers/start-test-server.ts';
import { api } from '../test/helpers/api.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, dflt: string) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const OBJECTS = Number(arg('--objects', '1000'));
const BACKEND = arg('--backend', 'sqlite') as 'sqlite' | 'postgres';
const WORKERS = arg('--workers', '2');
const body = (i: number, rev: number) => `# Field note ${i}\n\nThe specimen ${i.toString(36)}qux was catalogued in group ${i % 20} during survey ${i}, revision ${rev}. `
  + 'It was found near the river bank under a flat stone, measured, photographed and released the same afternoon.\n';
const objects = (rev: number): Array<[string, string]> => Array.from({ length: OBJECTS }, (_, i) => [`corpus/part-${i % 20}/note-${i}.md`, body(i, rev)]);

async function main(): Promise<void> {
  const s3 = await startS3Server();
  await s3.createBucket('bench-sync');
  await s3.putObjects('bench-sync', objects(0));
  const server = await startTestServer({ backend: BACKEND, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_WORKER_CONCURRENCY: WORKERS } });
  try {
    const { apiKey: key } = await createProject(server);
    const sync = async (label: string) => {
      const t = Date.now();
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', {
        source: { type: 's3', bucket: 'bench-sync', prefix: 'corpus/', endpoint: s3.endpoint, credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } },
        sync: { delete_missing: true },
      });
      if (r.status !== 202) throw new Error(JSON.stringify(r.body));
      const id = (r.body as { bucket_ingest_task_id: string }).bucket_ingest_task_id;
      let view: any;
      for (;;) {
        view = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}`)).body;
        if (['done', 'done_with_errors', 'failed'].includes(view.state)) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const seconds = (Date.now() - t) / 1000;
      const { files_new: added, files_changed: changed, files_unchanged: unchanged, files_deleted: deleted, files_failed: failed } = view.sync;
      return { run: label, state: view.state, seconds: Number(seconds.toFixed(2)), objects_per_second: Number((OBJECTS / seconds).toFixed(1)), new: added, changed, unchanged, deleted, failed };
    };
    const runs = [await sync('all new')];
    runs.push(await sync('all unchanged'));
    await s3.putObjects('bench-sync', objects(1));
    runs.push(await sync('all changed'));
    const docs = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as { total_documents: number };
    const ok = runs[0].new === OBJECTS && runs[1].unchanged === OBJECTS && runs[2].changed === OBJECTS && docs.total_documents === OBJECTS;
    console.table(runs);
    const result = { objects: OBJECTS, backend: BACKEND, ingest_workers: Number(WORKERS), runs, documents: docs.total_documents, counts_exact: ok, machine: '2 cores (shared)', date: new Date().toISOString() };
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(repoRoot, 'bench/results/bucket-sync.json'), JSON.stringify(result, null, 2) + '\n');
    if (!ok) process.exitCode = 1;
  } finally {
    await server.close();
    await s3.close();
  }
}

await main();
