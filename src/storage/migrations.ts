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
  '0003_attributes': {
    // The per-project registry of typed attribute names. The primary key (project_id, name) is
    // the unique constraint that makes concurrent first uses of a name resolve to one type.
    async up(db: Kysely<any>) {
      await db.schema.createTable('project_attributes')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('project_attributes_pk', ['project_id', 'name'])
        .execute();
    },
  },
  '0004_jobs_lifecycle': {
    // Status versions for the SSE stream, Idempotency-Key, the last transient error of a retried
    // job, fair claiming (per-project counts), and completion webhooks (secret, deliveries, attempts).
    async up(db: Kysely<any>) {
      await db.schema.alterTable('jobs').addColumn('status_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('jobs').addColumn('idempotency_key', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('request_fingerprint', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('last_error', 'text').execute();
      await db.schema.createIndex('jobs_idempotency').on('jobs').columns(['project_id', 'idempotency_key']).unique().execute();
      await db.schema.createIndex('jobs_project_status').on('jobs').columns(['project_id', 'status']).execute();
      await db.schema.createTable('webhook_secrets')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('headers', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('delivered_at', 'text')
        .execute();
      await db.schema.createIndex('webhook_deliveries_job').on('webhook_deliveries').columns(['project_id', 'job_id']).execute();
      await db.schema.createTable('webhook_attempts')
        .addColumn('delivery_id', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
        .execute();
    },
  },
  '0005_bucket_tasks': {
    // Bulk bucket ingestion. One row per task (state machine, encrypted source credentials,
    // listing checkpoint, counters), one row per discovered object (its own state and the ingest job it
    // became), the e-mail completion deliveries, and per-account monthly usage for the optional quotas.
    // The partial unique index enforces "one active task per account" even under concurrent requests.
    async up(db: Kysely<any>) {
      await db.schema.createTable('bucket_tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('namespace', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('state_description', 'text', (c) => c.notNull())
        .addColumn('paused_from', 'text')
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('cancelled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('source_type', 'text', (c) => c.notNull())
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('region', 'text')
        .addColumn('endpoint', 'text')
        .addColumn('filter_glob', 'text')
        .addColumn('credentials', 'text', (c) => c.notNull())
        .addColumn('credentials_version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('completion', 'text', (c) => c.notNull())
        .addColumn('acknowledge_egress_cost', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('file_cap', 'integer', (c) => c.notNull())
        .addColumn('list_cursor', 'text')
        .addColumn('listing_done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('stop_reason', 'text')
        .addColumn('files_found', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('bytes_found', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('run', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('driver_job_id', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('bucket_tasks_one_active').on('bucket_tasks').column('account_id')
        .unique().where(sql.ref('active'), '=', 1).execute();
      await db.schema.createIndex('bucket_tasks_project').on('bucket_tasks').columns(['project_id', 'created_at']).execute();
      await db.schema.createTable('bucket_task_files')
        .addColumn('task_id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('etag', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('doc_id', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('bucket_task_files_pk', ['task_id', 'key'])
        .execute();
      await db.schema.createIndex('bucket_task_files_state').on('bucket_task_files').columns(['task_id', 'state', 'key']).execute();
      await db.schema.createIndex('bucket_task_files_job').on('bucket_task_files').column('job_id').execute();
      await db.schema.createTable('bucket_task_emails')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('task_id', 'text', (c) => c.notNull())
        .addColumn('run', 'integer', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('sent_at', 'text')
        .execute();
      await db.schema.createTable('bucket_usage')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('files', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('bucket_usage_pk', ['account_id', 'month'])
        .execute();
    },
  },
  // Searches ask for a project's documents in state 'deleting' (search/doc-filters.ts deletingDocs): with
  // only the (project_id, doc_id) key that scanned every document of the project (≈0.9 ms at 5 000).
  '0006_documents_state': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('documents_project_state').on('documents').columns(['project_id', 'state']).execute();
    },
  },
  // One writer per namespace (docs/scale-out.md). `holder`/`epoch`/`expires_at` are the writer
  // lease (expires_at in ms on the control plane's clock, epoch counts acquisitions), `wanted_by` is the
  // one waiting node that gets the lease next, and `version` counts Lance commits so that readers on
  // other nodes know when to move their table handles to the latest version.
  '0007_namespace_leases': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('namespace_leases')
        .addColumn('namespace', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text')
        .addColumn('epoch', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('wanted_by', 'text')
        .addColumn('wanted_at', 'bigint')
        .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  // Request-rate counters shared by every API process of a PostgreSQL deployment
  // (src/http/plugins/rate-limit-store.ts): one fixed window per limiter key.
  '0008_rate_limits': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('window_start_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('hits', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limits_expiry').on('rate_limits').column('expires_at_ms').execute();
    },
  },
  // Abbreviations defined by each document (analysis/abbreviations.ts), looked up by key when a
  // query holds a short form; rows go and come with their document.
  '0009_document_abbreviations': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('document_abbreviations')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('doc_id', 'text', (c) => c.notNull())
        .addColumn('short_key', 'text', (c) => c.notNull())
        .addColumn('short_form', 'text', (c) => c.notNull())
        .addColumn('long_form', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('document_abbreviations_key').on('document_abbreviations').columns(['project_id', 'short_key']).execute();
      await db.schema.createIndex('document_abbreviations_doc').on('document_abbreviations').columns(['project_id', 'doc_id']).execute();
    },
  },
  // Evaluations of a project's search on its own labelled questions (src/evaluations): the request
  // and the stored report, readable after the documents they name are gone; deleted with the project.
  '0010_evaluations': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('evaluations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('case_count', 'integer', (c) => c.notNull())
        .addColumn('variant_count', 'integer', (c) => c.notNull())
        .addColumn('runs_done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('request', 'text', (c) => c.notNull())
        .addColumn('report', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('evaluations_project').on('evaluations').columns(['project_id', 'created_at']).execute();
    },
  },
  // Source identity (docs/sync.md): where a document came from (bucket object, final URL or a client-given
  // id), the object's ETag/generation and a hash of its bytes, so that ingesting the same source again
  // replaces the document and a bucket sync can tell new, changed and unchanged objects apart. One document
  // per source (partial unique index). Bucket tasks gain the sync mode, its deletion switch, the repeat
  // interval and per-file outcomes.
  '0011_source_identity': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('documents').addColumn('source_key', 'text').execute();
      await db.schema.alterTable('documents').addColumn('source_etag', 'text').execute();
      await db.schema.alterTable('documents').addColumn('content_hash', 'text').execute();
      await db.schema.createIndex('documents_source').on('documents').columns(['project_id', 'source_key']).unique()
        .where(sql.ref('source_key'), 'is not', null).execute();
      await db.schema.alterTable('bucket_tasks').addColumn('sync', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('bucket_tasks').addColumn('delete_missing', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('bucket_tasks').addColumn('interval_seconds', 'integer').execute();
      await db.schema.alterTable('bucket_tasks').addColumn('next_run_at', 'text').execute();
      await db.schema.alterTable('bucket_tasks').addColumn('files_deleted', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('bucket_task_files').addColumn('change', 'text').execute();
    },
  },
  // Ingest progress (docs/jobs.md): the running attempt's stage, pages parsed and chunks embedded, as JSON,
  // so the status view, the status stream and the clients built on them can show work that moves.
  '0012_job_progress': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('jobs').addColumn('progress', 'text').execute();
    },
  },
  // Index generations (docs/reindex.md): which Lance table serves a namespace, the one an online reindex
  // is building and by which job, and what built the serving one (embedder, analyser, table format).
  '0013_index_generations': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('namespace_leases').addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('namespace_leases').addColumn('build_generation', 'integer').execute();
      await db.schema.alterTable('namespace_leases').addColumn('build_job_id', 'text').execute();
      await db.schema.alterTable('namespace_leases').addColumn('built_with', 'text').execute();
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
