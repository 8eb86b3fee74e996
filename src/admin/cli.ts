// Command of `npm run backup` and `npm run restore` (docs/deployment.md, "Backup and restore"):
// parses the arguments and the storage settings the service itself would use, refuses what only the
// embedded default supports, and prints the report as JSON. Exit codes: 0 done, 2 refused or failed.
//   npm run backup -- --to DIR [--data-dir DIR]
//   npm run restore -- --from DIR --data-dir NEWDIR
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseStorageConfig } from '../internal/storage-config.ts';
import { backupDataDir } from './backup.ts';
import { restoreDataDir } from './restore.ts';

const USAGE = 'usage: npm run backup -- --to DIR [--data-dir DIR] | npm run restore -- --from DIR --data-dir NEWDIR';

/** Run `backup` or `restore` with argv-style `args` and environment `env`; resolves to the process exit code. */
export async function runAdmin(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const { values } = parseArgs({ args, options: { to: { type: 'string' }, from: { type: 'string' }, 'data-dir': { type: 'string' } } });
    if (command === 'backup') {
      if (!values.to) throw new Error(`backup: --to DIR is required\n${USAGE}`);
      const dataDir = path.resolve(values['data-dir'] ?? (env.DOCSEARCH_DATA_DIR || './data'));
      if (env.DOCSEARCH_DATABASE_URL) throw new Error('backup: DOCSEARCH_DATABASE_URL is set; this command backs up the embedded default only (PostgreSQL + object storage: docs/deployment.md, "Backup and restore")');
      const storage = parseStorageConfig(env, dataDir);
      if (storage.blob.kind !== 'local' || storage.index.kind !== 'local') {
        throw new Error('backup: the blob store or the index is not a local directory; follow the PostgreSQL + object storage procedure in docs/deployment.md');
      }
      const report = await backupDataDir({ dataDir, blobDir: storage.blob.dir, lanceDir: storage.index.uri }, path.resolve(values.to));
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
