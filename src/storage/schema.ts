// Row types of the control-plane database. One schema for SQLite and PostgreSQL: timestamps are
// RFC 3339 strings, booleans are 0/1 integers, JSON is text. Keeping the column types portable lets one
// set of migrations and one set of queries serve both backends.
import type { ColumnType, Generated } from 'kysely';

/** A nullable column an insert may leave out (it then holds null or its default). */
type Optional<T> = ColumnType<T, T | undefined, T>;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** null for account keys; the owning project for project keys. */
  project_id: string | null;
  kind: 'account' | 'project';
  /** sha256 hex of the whole token; tokens are ≥256-bit random so a fast hash is sufficient. */
  key_hash: string;
  /** First characters of the token, for display ("svc_prod_ds_Ab12…"). */
  display_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface ProjectsTable {
  id: string;
  account_id: string;
  name: string;
  product: 'docsearch' | 'altproduct';
  protected: number;
  /** LanceDB table name of the project's namespace. */
  namespace: string;
  status: 'active' | 'purged';
  created_at: string;
  deleted_at: string | null;
}

export interface DocumentsTable {
  project_id: string;
  doc_id: string;
  /** 'visible' once committed; 'deleting' hides it before its data-plane rows are removed. */
  state: 'visible' | 'deleting';
  title: string;
  language: string;
  filename: string;
  canonical_url: string;
  content_type: string;
  pages: number;
  chunkset_count: number;
  chunk_count: number;
  image_count: number;
  table_count: number;
  ingested_at: string;
  source_job_id: string;
  bm25_state: 'pending' | 'indexed';
  blob_key: string;
  size: number;
  /** JSON object of typed attribute values. */
  attributes: string;
  /** JSON object of X-Unencrypted-Strings. */
  unencrypted_strings: string;
  /**
   * Where the document came from (docs/sync.md): `s3://bucket/key`, `gs://bucket/key`, the final URL of a
   * remote ingest, or `id:<X-Source-ID>`; null for a plain upload. Unique per project.
   */
  source_key: Optional<string | null>;
  /** ETag (S3) or MD5/etag (GCS) of the source object as last ingested; null outside bucket ingests. */
  source_etag: Optional<string | null>;
  /** sha256 hex of the ingested bytes; null for documents ingested before sources were recorded. */
  content_hash: Optional<string | null>;
}

/**
 * One abbreviation a document defines, under one lookup key (analysis/abbreviations.ts): a query
 * word "PPNE" finds the long form "property, plant and equipment" that a visible document defined as
 * "(PP&E)". Written in the transaction that makes the document visible, removed with it.
 */
export interface DocumentAbbreviationsTable {
  project_id: string;
  doc_id: string;
  /** shortFormKeys() of the short form: letters and digits, lower-cased ("ppe", "ppne"). */
  short_key: string;
  short_form: string;
  long_form: string;
}

export interface JobsTable {
  id: string;
  project_id: string;
  kind: string;
  status: 'pending' | 'processing' | 'done' | 'failed';
  /** HTTP-like outcome code (DESIGN.md §5). */
  code: number;
  error_code: string | null;
  error_message: string | null;
  filename: string;
  size: number;
  base_url: string | null;
  /** JSON: everything the handler needs (blob key, remote url, attributes, completion target). */
  payload: string;
  doc_id: string | null;
  attempts: number;
  max_attempts: number;
  run_after: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Incremented on every status change; the SSE event id (migration 0004). */
  status_version: number;
  /** Idempotency-Key of the creating request, unique per project (null when none was sent). */
  idempotency_key: string | null;
  /** sha256 of what the key must keep meaning (filename, remote URL); a mismatch is refused. */
  request_fingerprint: string | null;
  /** Error of the last failed attempt while the job waits for a retry. */
  last_error: string | null;
  /** JSON JobProgress (jobs/job-view.ts) of the running attempt: stage, pages parsed, chunks embedded (migration 0012). */
  progress: string | null;
}

/** Per-project signing secret of completion webhooks (`whsec_` + base64 of 32 random bytes). */
export interface WebhookSecretsTable {
  project_id: string;
  secret: string;
  created_at: string;
}

/** One completion event to deliver; its id is the `webhook-id` header, stable across retries. */
export interface WebhookDeliveriesTable {
  id: string;
  project_id: string;
  job_id: string;
  event_type: string;
  url: string;
  /** JSON object of extra request headers from X-Completion. */
  headers: string;
  /** The exact JSON body sent (fixed when the job became terminal). */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** Every delivery attempt, for audit. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** Registry of typed attribute names: the first use of a name fixes its type forever. */
export interface ProjectAttributesTable {
  project_id: string;
  /** ^[a-z0-9_]{1,64}$ */
  name: string;
  /** One of the spec's 12 types, e.g. 'int' or '[]encrypted_text'. */
  type: string;
  created_at: string;
}

/** One bulk bucket-ingest task (see src/buckets/). */
export interface BucketTasksTable {
  id: string;
  account_id: string;
  project_id: string;
  namespace: string;
  /** One of the spec's 12 task states (src/buckets/task-states.ts). */
  state: string;
  state_description: string;
  /** The phase a paused task returns to on resume. */
  paused_from: string | null;
  /** 1 while not terminal (partial unique index: one active task per account). */
  active: number;
  cancelled: number;
  source_type: 's3' | 'gcs';
  bucket: string;
  prefix: string;
  region: string | null;
  endpoint: string | null;
  filter_glob: string | null;
  /** AES-256-GCM ciphertext of the source credentials (src/buckets/credentials-cipher.ts). */
  credentials: string;
  credentials_version: number;
  /** JSON array of completion targets. */
  completion: string;
  acknowledge_egress_cost: number;
  file_cap: number;
  /** Listing checkpoint: the source's continuation token after the last committed page. */
  list_cursor: string | null;
  listing_done: number;
  /** Why listing stopped early: 'file_cap' | 'task_size_limit'. */
  stop_reason: string | null;
  files_found: number;
  bytes_found: number;
  /** 1, +1 per retryFailed re-run (completion notifications fire once per run). */
  run: number;
  driver_job_id: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** 1 = sync mode (docs/sync.md): unchanged objects are skipped, changed ones replace their document. */
  sync: Optional<number>;
  /** 1 = a sync run deletes documents of this source whose objects are gone (only after a complete listing). */
  delete_missing: Optional<number>;
  /** Seconds between the end of a sync run and the start of the next; null = runs once. */
  interval_seconds: Optional<number | null>;
  /** When the next run of a repeating sync task starts (RFC 3339); null when none is scheduled. */
  next_run_at: Optional<string | null>;
  /** Documents deleted by the current run (delete_missing). */
  files_deleted: Optional<number>;
}

/** One object discovered by a bucket task. */
export interface BucketTaskFilesTable {
  task_id: string;
  key: string;
  size: number;
  etag: string | null;
  /** pending | fetching | queued | done | failed | cancelled */
  state: string;
  /** The ingest job this object becomes (id assigned up front, so a restart never enqueues it twice). */
  job_id: string;
  doc_id: string | null;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  updated_at: string;
  /** Sync mode: 'new' | 'changed' | 'unchanged' (compared with the namespace at listing time); null otherwise. */
  change: Optional<string | null>;
}

/** An e-mail completion notification of a bucket task. */
export interface BucketTaskEmailsTable {
  id: string;
  task_id: string;
  run: number;
  address: string;
  subject: string;
  body: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
}

/** Per-account usage per UTC month ('2025-01'), for the optional bucket quotas. */
export interface BucketUsageTable {
  account_id: string;
  month: string;
  bytes: number;
  files: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** Writer lease and commit counter of one namespace's index table (docs/scale-out.md). */
export interface NamespaceLeasesTable {
  namespace: string;
  /** Lease owner id of the node allowed to commit, or null when free. */
  holder: string | null;
  /** Incremented on every acquisition (a fencing token: a renewal names the epoch it holds). */
  epoch: number;
  /** End of the lease, ms since the epoch on the control plane's clock. */
  expires_at: number;
  /** The one node queued for the lease next (fairness), and when it last asked (ms, control-plane clock). */
  wanted_by: string | null;
  wanted_at: number | null;
  /** Number of commits to the namespace's table so far (readers compare it with what they loaded). */
  version: number;
  /**
   * Generation of the Lance table serving the namespace (storage/index-build.ts generationTable: 0 = the
   * table named after the namespace); an online reindex switches it, with `version`, in one update.
   */
  generation: Optional<number>;
  /** Generation an online reindex is building, and its job; null when none runs. */
  build_generation: Optional<number | null>;
  build_job_id: Optional<string | null>;
  /** JSON IndexBuild (embedder, analyser, table format) of the serving table, as last read from it. */
  built_with: Optional<string | null>;
}

/** One fixed-window request counter: key `ip:<addr>` or `<class>:<project id>`; times in epoch ms. */
export interface RateLimitsTable {
  key: string;
  window_start_ms: number;
  expires_at_ms: number;
  hits: number;
}

/** One evaluation (src/evaluations): its request, progress and, once done, its report; id = its job's id. */
export interface EvaluationsTable {
  id: string;
  project_id: string;
  name: string;
  /** pending, running, done, failed or cancelled. */
  status: string;
  case_count: number;
  variant_count: number;
  /** Case × variant runs finished so far. */
  runs_done: number;
  /** JSON: { cases, variants } as validated. */
  request: string;
  /** JSON EvaluationReport; null until done. */
  report: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  documents: DocumentsTable;
  document_abbreviations: DocumentAbbreviationsTable;
  jobs: JobsTable;
  settings: SettingsTable;
  project_attributes: ProjectAttributesTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  bucket_tasks: BucketTasksTable;
  bucket_task_files: BucketTaskFilesTable;
  bucket_task_emails: BucketTaskEmailsTable;
  bucket_usage: BucketUsageTable;
  namespace_leases: NamespaceLeasesTable;
  rate_limits: RateLimitsTable;
  evaluations: EvaluationsTable;
}

/** Placeholder to keep `Generated` imported for future auto-increment columns. */
export type _Unused = Generated<number>;
