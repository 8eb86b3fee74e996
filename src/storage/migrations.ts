// One ordered set of migrations for both control-plane backends (SQLite and PostgreSQL), applied at
// start-up by Kysely's Migrator. Only portable column types are used (text, integer, bigint).
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';

const migrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<any>) {
      await db.schema.createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('product', 'text', (c) => c.notNull())
        .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('namespace', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('projects_account').on('projects').columns(['account_id', 'status']).execute();
      await db.schema.createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('project_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('display_prefix', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createTable('documents')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('doc_id', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('language', 'text', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('canonical_url', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('pages', 'integer', (c) => c.notNull())
        .addColumn('chunkset_count', 'integer', (c) => c.notNull())
        .addColumn('chunk_count', 'integer', (c) => c.notNull())
        .addColumn('image_count', 'integer', (c) => c.notNull())
        .addColumn('table_count', 'integer', (c) => c.notNull())
        .addColumn('ingested_at', 'text', (c) => c.notNull())
        .addColumn('source_job_id', 'text', (c) => c.notNull())
        .addColumn('bm25_state', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('attributes', 'text', (c) => c.notNull())
        .addColumn('unencrypted_strings', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('documents_pk', ['project_id', 'doc_id'])
        .execute();
      await db.schema.createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('code', 'integer', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('base_url', 'text')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('doc_id', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('run_after', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'run_after']).execute();
      await db.schema.createIndex('jobs_project').on('jobs').columns(['project_id', 'created_at']).execute();
      await db.schema.createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await sql`select 1`.execute(db);
    },
  },
  '0002_projects_active_name': {
    // One active project per (account, name): "a new project created with the same name" is possible
    // only after the old one was deleted (spec "Authentication", rotation). Index for key revocation.
    async up(db: Kysely<any>) {
      await db.schema.createIndex('projects_active_name').on('projects').columns(['account_id', 'name'])
        .unique().where(sql.ref('status'), '=', 'active').execute();
      await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Apply all pending migrations.
 * @throws Error with the failing migration's name when one fails (the process must not start).
 */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${String((error as Error)?.message ?? error)}`);
  }
}
