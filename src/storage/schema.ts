// Row types of the control-plane database. One schema for SQLite and PostgreSQL: timestamps are
// RFC 3339 strings, booleans are 0/1 integers, JSON is text. Keeping the column types portable lets one
// set of migrations and one set of queries serve both backends.
import type { Generated } from 'kysely';

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
  /** JSON object of typed attribute values (issue 4). */
  attributes: string;
  /** JSON object of X-Unencrypted-Strings. */
  unencrypted_strings: string;
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
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  documents: DocumentsTable;
  jobs: JobsTable;
  settings: SettingsTable;
}

/** Placeholder to keep `Generated` imported for future auto-increment columns. */
export type _Unused = Generated<number>;
