// Backup of a running service on the embedded default, taken while an ingest is under way, restored into
// a new data directory and served by a second server: every document the restored control plane lists
// is listed and searchable, no search shows a document the snapshot did not commit (never half-present),
// and once the restored server has run the jobs the snapshot caught in flight, searches give the same
// results as on the original. Restore runs as `npm run restore` does; the backup through the same command function, in this process.
// Runs alone: stops and restarts servers around a backup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { openSqlite } from '../src/storage/sqlite-binding.ts';
import { startTestServer, createProject, repoRoot } from './helpers/index.ts';
import { waitForJob } from './helpers/api.ts';
import { DOCS_BEFORE, DOCS_DURING, assertConverges, assertSnapshotServed, enqueueDocs, ingestDocs } from './helpers/restore-checks.ts';
import { backupDataDir } from '../src/admin/backup.ts';
import { runAdmin } from '../src/admin/cli.ts';
import { restoreDataDir } from '../src/admin/restore.ts';
import { createApp, type AppHandle } from '../src/app.ts';
import { parseStorageConfig } from '../src/internal/storage-config.ts';

const run = promisify(execFile);

/** `npm run <command> -- args` as a child process (scripts/admin.ts); resolves to its parsed JSON report and wall time. */
async function admin(command: 'restore', args: string[]): Promise<{ report: any; ms: number }> {
  const t0 = Date.now();
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/admin.ts'), command, ...args], { cwd: repoRoot, env: { ...process.env, DOCSEARCH_DATA_DIR: '' } });
  return { report: JSON.parse(stdout), ms: Date.now() - t0 };
}

test('backup during ingest, restore into a new data directory: same documents, same results', { timeout: 240_000 }, async () => {
  const server = await startTestServer({ backend: 'sqlite' });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-backup-'));
  let restored: AppHandle | undefined;
  try {
    const p = await createProject(server);
    await ingestDocs(server.baseUrl, p.apiKey, DOCS_BEFORE);
    // Another ingest runs while the backup is taken.
    const late = await enqueueDocs(server.baseUrl, p.apiKey, DOCS_DURING);
    const backupDir = path.join(tmp, 'backup');
    // In this process (no tool start-up), so that it overlaps the ingest just queued; restore below runs
    // as its own process, as `npm run restore` does.
    const tb = Date.now();
    assert.equal(await runAdmin('backup', ['--to', backupDir, '--data-dir', server.dataDir], {}), 0);
    const backup = { ms: Date.now() - tb, report: JSON.parse(fs.readFileSync(path.join(backupDir, 'backup.json'), 'utf8')) };
    for (const id of late) assert.equal((await waitForJob(server.baseUrl, p.apiKey, id)).status, 'done');

    // Bad inputs change nothing: a non-empty target, a non-empty data directory, a missing backup.
    const layout = { dataDir: server.dataDir, blobDir: path.join(server.dataDir, 'blobs'), lanceDir: path.join(server.dataDir, 'lance') };
    await assert.rejects(backupDataDir(layout, backupDir), /is not empty/);
    await assert.rejects(restoreDataDir(backupDir, server.dataDir), /is not empty/);
    await assert.rejects(restoreDataDir(path.join(tmp, 'nothing'), path.join(tmp, 'x')), /no complete backup/);
    assert.equal(await runAdmin('restore', ['--from', backupDir], {}), 2, 'a missing --data-dir is refused');
    assert.equal(fs.existsSync(path.join(tmp, 'x')), false);

    const newDir = path.join(tmp, 'restored');
    const restore = await admin('restore', ['--from', backupDir, '--data-dir', newDir]);
    const snap = openSqlite(path.join(backupDir, 'control.sqlite'), { readonly: true });
    const snapDocs = (snap.prepare(`select doc_id from documents where state = 'visible' and project_id = ?`).all(p.projectId) as { doc_id: string }[]).map((d) => d.doc_id).sort();
    snap.close();
    assert.ok(snapDocs.length >= 3, 'the documents ingested before the backup are in it');

    const cfg = server.services.config;
    restored = await createApp({ ...cfg, dataDir: newDir, storage: parseStorageConfig({}, newDir) }, { logger: false });
    await restored.http.listen({ host: '127.0.0.1', port: 0 });
    restored.startRecovery();
    const base = `http://127.0.0.1:${(restored.http.server.address() as AddressInfo).port}`;
    // Before the restored server runs any job: exactly the snapshot's documents, each searchable in itself.
    await assertSnapshotServed(base, p.apiKey, snapDocs);

    // Jobs caught in flight run again; then both servers hold the same documents and answer alike.
    restored.startWorkers();
    await assertConverges(base, server.baseUrl, p.apiKey, 120_000);

    console.log(`backup ${backup.ms} ms (tool ${backup.report.elapsed_ms.total} ms, ${backup.report.documents} documents, ${Object.keys(backup.report.tables).length} tables, ${backup.report.attempts} snapshot tries), restore ${restore.ms} ms (tool ${restore.report.elapsed_ms} ms, ${restore.report.jobs_requeued} jobs requeued)`);
  } finally {
    await restored?.close();
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
