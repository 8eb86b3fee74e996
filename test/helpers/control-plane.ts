// A control plane for tests that talk to storage directly (queue, rate counters, leases), on either
// backend: a fresh SQLite directory or a fresh PostgreSQL database, and one call that removes it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openControlPlane, type ControlPlane } from '../../src/storage/db.ts';
import { createTestDatabase } from './postgres.ts';

/**
 * Open a control plane on `backend` ('sqlite' or 'postgres', see BACKENDS in server.ts).
 * @param prefix name prefix of the temporary data directory
 * @returns the control plane and `close()`, which closes it and drops its database and directory
 */
export async function openTestControlPlane(backend: string, prefix: string): Promise<{ cp: ControlPlane; close: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const database = backend === 'postgres' ? await createTestDatabase() : undefined;
  const cp = await openControlPlane({ dataDir, databaseUrl: database?.url });
  return {
    cp,
    close: async () => {
      await cp.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
