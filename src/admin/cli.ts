// Command of `npm run backup` and `npm run restore` (docs/deployment.md, "Backup and restore"):
// parses the arguments and the storage settings the service itself would use, picks the embedded
// default (SQLite + local directories) or, with DOCSEARCH_DATABASE_URL set, PostgreSQL + object storage,
// and prints the report as JSON. Exit codes: 0 done, 2 refused or failed.
//   npm run backup -- --to DIR [--data-dir DIR] [--clock-margin-ms N]
//   npm run restore -- --from DIR --data-dir NEWDIR            (embedded default)
//   npm run restore -- --from DIR [--data-dir DIR]             (DOCSEARCH_DATABASE_URL set: into it)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseStorageConfig } from '../internal/storage-config.ts';
import { backupDataDir } from './backup.ts';
import { restoreDataDir } from './restore.ts';
import { backupPostgres } from './pg-backup.ts';
import { restorePostgres } from './pg-restore.ts';

const USAGE = 'usage: npm run backup -- --to DIR [--data-dir DIR] [--clock-margin-ms N] | npm run restore -- --from DIR --data-dir NEWDIR (with DOCSEARCH_DATABASE_URL: --from DIR)';

/** Run `backup` or `restore` with argv-style `args` and environment `env`; resolves to the process exit code. */
export async function runAdmin(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const { values } = parseArgs({ args, options: { to: { type: 'string' }, from: { type: 'string' }, 'data-dir': { type: 'string' }, 'clock-margin-ms': { type: 'string' } } });
    const databaseUrl = env.DOCSEARCH_DATABASE_URL || undefined;
    if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error(`${command}: DOCSEARCH_DATABASE_URL must be a postgres:// URL`);
    const margin = values['clock-margin-ms'];
    if (margin !== undefined && !/^\d{1,6}$/.test(margin)) throw new Error(`backup: --clock-margin-ms must be a whole number of ms, got "${margin}"`);
    if (command === 'backup') {
      if (!values.to) throw new Error(`backup: --to DIR is required\n${USAGE}`);
      const dataDir = path.resolve(values['data-dir'] ?? (env.DOCSEARCH_DATA_DIR || './data'));
      const storage = parseStorageConfig(env, dataDir);
      if (databaseUrl) {
        const report = await backupPostgres(databaseUrl, storage, path.resolve(values.to), { clockMarginMs: margin === undefined ? undefined : Number(margin), env });
        console.log(JSON.stringify(report, null, 2));
        return 0;
      }
      if (storage.blob.kind !== 'local' || storage.index.kind !== 'local') {
        throw new Error('backup: the blob store or the index is not a local directory, which needs DOCSEARCH_DATABASE_URL (PostgreSQL); the embedded default keeps both in the data directory');
      }
      const report = await backupDataDir({ dataDir, blobDir: storage.blob.dir, lanceDir: storage.index.uri }, path.resolve(values.to));
      console.log(JSON.stringify(report, null, 2));
      return 0;
    }
    if (command === 'restore' && databaseUrl) {
      if (!values.from) throw new Error(`restore: --from DIR is required\n${USAGE}`);
      const storage = parseStorageConfig(env, path.resolve(values['data-dir'] ?? (env.DOCSEARCH_DATA_DIR || './data')));
      const report = await restorePostgres(path.resolve(values.from), databaseUrl, storage, env);
      console.log(JSON.stringify(report, null, 2));
      return 0;
    }
    if (command === 'restore') {
      if (!values.from || !values['data-dir']) throw new Error(`restore: --from DIR and --data-dir NEWDIR are required\n${USAGE}`);
      const report = await restoreDataDir(path.resolve(values.from), path.resolve(values['data-dir']));
      console.log(JSON.stringify(report, null, 2));
      return 0;
    }
    throw new Error(USAGE);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
}
