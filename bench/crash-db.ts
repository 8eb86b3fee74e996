// Read-only access to the crash harness's control plane, whichever backend the server under test uses:
// the SQLite file in its data dir, or a PostgreSQL database (DOCSEARCH_DATABASE_URL). The harness and
// its invariant checks only run plain portable SELECTs through `all`.
import path from 'node:path';
import { openSqlite } from '../src/storage/sqlite-binding.ts';
import pg from 'pg';

export interface ControlReader {
  all<T>(query: string): Promise<T[]>;
  close(): Promise<void>;
}

/** Open a reader on the server's control plane (open it per use: the server may be killed meanwhile). */
export async function openControlReader(dataDir: string, databaseUrl?: string): Promise<ControlReader> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return {
      all: async <T>(query: string) => (await client.query(query)).rows.map((r) => numbers(r) as T),
      close: () => client.end(),
    };
  }
  const db = openSqlite(path.join(dataDir, 'control.sqlite'), { readonly: true });
  return {
    all: async <T>(query: string) => db.prepare(query).all() as T[],
    close: async () => { db.close(); },
  };
}

/** PostgreSQL answers count(*) and bigint as strings: make numeric-looking counts numbers. */
function numbers(row: Record<string, unknown>): Record<string, unknown> {
  for (const k of ['n', 'chunk_count']) if (typeof row[k] === 'string') row[k] = Number(row[k]);
  return row;
}

/** Run `fn` with a fresh reader, closing it afterwards. */
export async function withControlReader<T>(dataDir: string, databaseUrl: string | undefined, fn: (r: ControlReader) => Promise<T>): Promise<T> {
  const r = await openControlReader(dataDir, databaseUrl);
  try {
    return await fn(r);
  } finally {
    await r.close();
  }
}
