// Throughput of bulk bucket ingestion through the real service: N small text objects under a
// prefix in a local S3-protocol server (s3rver behind the SigV4-checking proxy of the tests), one
// POST /v3/docsearch/ingestBucket with a glob, polled to the end. Reports files/s end to end (create ->
// terminal state) and per phase, then checks every document is listed and a sample is searchable.
// Writes bench/results/bucket-ingest.json.
// Run: npx tsx bench/bucket-ingest.ts [--files 2000] [--backend sqlite|postgres] [--workers 2]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, createProject } from '../test/helpers/start-test-server.ts';
import { api } from '../test/helpers/api.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, dflt: string) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const FILES = Number(arg('--files', '2000'));
const BACKEND = arg('--backend', 'sqlite') as 'sqlite' | 'postgres';
const WORKERS = arg('--workers', '2');
const word = (i: number) => `zorblat${i.toString(36)}quix`;

async function main(): Promise<void> {
  const s3 = await startS3Server();
  await s3.createBucket('bench-bucket');
  const objects: Array<[string, string]> = [];
  for (let i = 0; i < FILES; i++) {
    objects.push([`corpus/part-${i % 20}/note-${i}.${i % 2 ? 'md' : 'txt'}`,
      `# Field note ${i}\n\nThe specimen ${word(i)} was catalogued in group ${i % 20} during survey number ${i}. ` +
      'It was found near the river bank under a flat stone, measured, photographed and released the same afternoon.\n']);
  }
  objects.push(['corpus/part-0/skip.png', 'x'], ['elsewhere/skip.txt', 'x']);
  let t = Date.now();
  await s3.putObjects('bench-bucket', objects);
  console.log(`seeded ${objects.length} objects in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const server = await startTestServer({ backend: BACKEND, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_WORKER_CONCURRENCY: WORKERS } });
  try {
    const { apiKey: key } = await createProject(server);
    t = Date.now();
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', {
      source: { type: 's3', bucket: 'bench-bucket', prefix: 'corpus/', endpoint: s3.endpoint, credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } },
      filter_glob: '**/*.{md,txt}',
    });
    if (r.status !== 202) throw new Error(JSON.stringify(r.body));
    const id = (r.body as { bucket_ingest_task_id: string }).bucket_ingest_task_id;
    const phases: Record<string, number> = {};
    let view: any;
    for (;;) {
      view = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}`)).body;
      phases[view.state] ??= (Date.now() - t) / 1000;
      if (['done', 'done_with_errors', 'failed'].includes(view.state)) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const seconds = (Date.now() - t) / 1000;
    const docs = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as { total_documents: number };
    let found = 0;
    const sample = Array.from({ length: 50 }, (_, k) => Math.floor((k * FILES) / 50));
    for (const i of sample) {
      const s = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: word(i), format: 'json' })).body as { results: Array<{ content: string }> };
      if (s.results[0]?.content.includes(word(i))) found++;
    }
    const result = {
      files: FILES, backend: BACKEND, ingest_workers: Number(WORKERS), state: view.state, seconds: Number(seconds.toFixed(2)),
      files_per_second: Number((view.progress.files_done / seconds).toFixed(1)), files_done: view.progress.files_done,
      files_failed: view.progress.files_failed, documents_listed: docs.total_documents, sample_searchable: `${found}/${sample.length}`,
      first_seen_state_at_s: phases, machine: '2 cores (shared)', date: new Date().toISOString(),
    };
    console.table([{ files: FILES, backend: BACKEND, state: view.state, seconds: result.seconds, 'files/s': result.files_per_second, docs: docs.total_documents, searchable: result.sample_searchable }]);
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(repoRoot, 'bench/results/bucket-ingest.json'), JSON.stringify(result, null, 2) + '\n');
  } finally {
    await server.close();
    await s3.close();
  }
}

await main();
