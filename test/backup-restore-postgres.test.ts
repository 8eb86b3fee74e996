// Backup of a running PostgreSQL + S3 deployment (blobs and index in one bucket), taken while an ingest
// is under way, restored into a new database and a new bucket and served by a second server: exactly the
// documents of the snapshot are listed, each searchable, none the snapshot did not commit is found, and
// once the restored server has run the jobs caught in flight, searches give the same results as on the
// original. The backup runs through the command function in this process (so that it overlaps the
// ingest); the restore as `npm run restore` does, in its own process. Refusals change nothing.
// Runs alone: stops and restarts servers around a backup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import pg from 'pg';
import { startTestServer, createProject, repoRoot } from './helpers/index.ts';
import { waitForJob } from './helpers/api.ts';
import { DOCS_BEFORE, DOCS_DURING, assertConverges, assertSnapshotServed, enqueueDocs, ingestDocs } from './helpers/restore-checks.ts';
import { createTestDatabase } from './helpers/postgres.ts';
import { seedModelCache } from './helpers/server.ts';
import { startS3Server } from './helpers/s3-server.ts';
import { runAdmin } from '../src/admin/cli.ts';
import { restorePostgres } from '../src/admin/pg-restore.ts';
import { restoreDataDir } from '../src/admin/restore.ts';
import { createApp, type AppHandle } from '../src/app.ts';
import { lanceS3StorageOptions, parseStorageConfig } from '../src/internal/storage-config.ts';

const run = promisify(execFile);

test('PostgreSQL + S3: backup during ingest, restore into a new database and bucket: same documents, same results', { timeout: 300_000 }, async () => {
  const T0 = Date.now();
  const phases: string[] = [];
  const phase = (name: string) => phases.push(`${name} ${((Date.now() - T0) / 1000).toFixed(1)} s`);
  const s3 = await startS3Server();
  await s3.createBucket('live');
  await s3.createBucket('restored');
  const s3Env = { DOCSEARCH_S3_ENDPOINT: s3.endpoint, DOCSEARCH_S3_REGION: s3.region, DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId, DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey };
  const liveEnv = { ...s3Env, DOCSEARCH_BLOB_URI: 's3://live/blobs', DOCSEARCH_INDEX_URI: 's3://live/index' };
  const newEnv = { ...s3Env, DOCSEARCH_BLOB_URI: 's3://restored/b', DOCSEARCH_INDEX_URI: 's3://restored/i' };
  const server = await startTestServer({ backend: 'postgres', env: liveEnv });
  const target = await createTestDatabase();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-pgbackup-'));
  let restored: AppHandle | undefined;
  try {
    phase('started');
    const liveUrl = server.services.config.databaseUrl!;
    const p = await createProject(server);
    await ingestDocs(server.baseUrl, p.apiKey, DOCS_BEFORE);
    phase('ingested');
    const late = await enqueueDocs(server.baseUrl, p.apiKey, DOCS_DURING);
    const backupDir = path.join(tmp, 'backup');
    const tb = Date.now();
    assert.equal(await runAdmin('backup', ['--to', backupDir], { ...process.env, ...liveEnv, DOCSEARCH_DATABASE_URL: liveUrl }), 0);
    const backup = { ms: Date.now() - tb, report: JSON.parse(fs.readFileSync(path.join(backupDir, 'backup.json'), 'utf8')) };
    for (const id of late) assert.equal((await waitForJob(server.baseUrl, p.apiKey, id)).status, 'done');

    // The live tables keep no tag: while one exists, the service's cleanup of old versions fails.
    const live = await lancedb.connect('s3://live/index', { storageOptions: lanceS3StorageOptions(parseStorageConfig(liveEnv, tmp).s3!) });
    for (const name of Object.keys(backup.report.tables)) {
      const t = await live.openTable(name);
      assert.deepEqual(Object.keys(await (await t.tags()).list()), [], `${name} has no tag left`);
      t.close();
    }
    live.close();

    // Refusals, before anything is written: a database with tables, a bucket prefix with objects, a non-empty target.
    const restoreCmd = (env: Record<string, string>) => run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/admin.ts'), 'restore', '--from', backupDir], { cwd: repoRoot, env: { ...process.env, DOCSEARCH_DATA_DIR: tmp, ...env } });
    await assert.rejects(restorePostgres(backupDir, liveUrl, parseStorageConfig(newEnv, tmp)), /the database \(DOCSEARCH_DATABASE_URL\) is not empty/);
    await assert.rejects(restorePostgres(backupDir, target.url, parseStorageConfig(liveEnv, tmp)), /DOCSEARCH_BLOB_URI location s3:\/\/live\/blobs\/ is not empty/);
    await assert.rejects(restorePostgres(path.join(tmp, 'nothing'), target.url, parseStorageConfig(newEnv, tmp)), /no complete backup/);
    assert.equal(await runAdmin('backup', ['--to', backupDir], { ...liveEnv, DOCSEARCH_DATABASE_URL: liveUrl }), 2, 'a non-empty backup target is refused');
    await assert.rejects(restoreDataDir(backupDir, path.join(tmp, 'x')), /restore it with DOCSEARCH_DATABASE_URL/);
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    assert.equal(Number((await client.query(`select count(*) as n from pg_tables where schemaname = 'public'`)).rows[0].n), 0, 'the refused restore wrote nothing');

    phase('backed up, refusals checked');
    const tr = Date.now();
    const { stdout } = await restoreCmd({ ...newEnv, DOCSEARCH_DATABASE_URL: target.url });
    const restore = { ms: Date.now() - tr, report: JSON.parse(stdout) };
    const snapDocs = (await client.query<{ doc_id: string }>(`select doc_id from documents where state = 'visible' and project_id = $1`, [p.projectId])).rows.map((d) => d.doc_id).sort();
    await client.end();
    assert.ok(snapDocs.length >= 3, 'the documents ingested before the backup are in it');
    assert.equal(backup.report.documents, restore.report.documents);

    phase('restored');
    const newData = path.join(tmp, 'restored-data');
    seedModelCache(newData); // the embedder's cache, as the original server has it (not part of the backup)
    restored = await createApp({ ...server.services.config, databaseUrl: target.url, dataDir: newData, storage: parseStorageConfig(newEnv, newData) }, { logger: false });
    await restored.http.listen({ host: '127.0.0.1', port: 0 });
    restored.startRecovery();
    const base = `http://127.0.0.1:${(restored.http.server.address() as AddressInfo).port}`;
    // Before the restored server runs any job: exactly the snapshot's documents, each searchable in itself.
    await assertSnapshotServed(base, p.apiKey, snapDocs);

    phase('snapshot checked on the restored server');
    // Jobs caught in flight run again; then both servers hold the same documents and answer alike.
    restored.startWorkers();
    await assertConverges(base, server.baseUrl, p.apiKey, 60_000);

    phase('in-flight jobs rerun, results compared');
    const r = backup.report;
    console.log(`backup ${backup.ms} ms (tool: control plane ${r.elapsed_ms.control_plane}, index ${r.elapsed_ms.index}, blobs ${r.elapsed_ms.blobs} ms; ${r.documents} documents, ${Object.keys(r.tables).length} tables, ${Object.values(r.tables as Record<string, { bytes: number }>).reduce((n, t) => n + t.bytes, 0)} index bytes, ${r.blobs.files} blobs, ${r.attempts} snapshot tries), restore ${restore.ms} ms (tool: control plane ${restore.report.elapsed_ms.control_plane}, index ${restore.report.elapsed_ms.index}, blobs ${restore.report.elapsed_ms.blobs} ms, ${restore.report.jobs_requeued} jobs requeued); at ${phases.join(', ')}`);
  } finally {
    await restored?.close();
    await server.close();
    await target.drop().catch(() => undefined);
    await s3.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
