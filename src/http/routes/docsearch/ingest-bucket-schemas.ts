// Schemas of the /docsearch/ingestBucket endpoints (TypeBox: validation, types and OpenAPI in one).
// The task view carries the spec's fields (bucket_ingest_task_id, state, state_description, poll_url,
// polling_guidance) plus the progress fields documented in docs/buckets.md. Credentials appear only in
// request bodies, never in a response.
import { Type } from '@sinclair/typebox';
import { TASK_STATES } from '../../../buckets/task-states.ts';
import { MAX_SYNC_INTERVAL_S, MIN_SYNC_INTERVAL_S } from '../../../buckets/sync.ts';

export const TaskIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const Credentials = Type.Record(Type.String(), Type.Unknown(), {
  description: 's3: {access_key_id, secret_access_key, session_token?}; gcs: {service_account_json} (the key file as a JSON string or object). Stored encrypted, never returned.',
});

export const CreateTaskBody = Type.Object({
  source: Type.Object({
    type: Type.Union([Type.Literal('s3'), Type.Literal('gcs')]),
    bucket: Type.String({ minLength: 3, maxLength: 222, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$' }),
    prefix: Type.Optional(Type.String({ maxLength: 1024 })),
    region: Type.Optional(Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9-]*$' })),
    endpoint: Type.Optional(Type.String({ maxLength: 2048, description: 'S3-compatible (or GCS-compatible) endpoint URL; path-style addressing is used with it.' })),
    credentials: Credentials,
  }, { additionalProperties: false }),
  filter_glob: Type.Optional(Type.String({ maxLength: 1024, description: 'picomatch glob matched against the key relative to the prefix, e.g. "**/*.pdf".' })),
  dry_run: Type.Optional(Type.Boolean()),
  acknowledge_egress_cost: Type.Optional(Type.Boolean()),
  sync: Type.Optional(Type.Object({
    delete_missing: Type.Optional(Type.Boolean({ description: 'Delete the documents of this bucket, prefix and glob whose objects are gone (after a complete listing only). Default false.' })),
    interval_seconds: Type.Optional(Type.Integer({ minimum: MIN_SYNC_INTERVAL_S, maximum: MAX_SYNC_INTERVAL_S, description: 'Start the next run this many seconds after a run ends; absent = one run.' })),
  }, {
    additionalProperties: false,
    description: 'Extension (docs/sync.md): sync mode. Objects whose ETag and size match the document the namespace holds from them are skipped, changed ones replace their document under the same doc_id, new ones are ingested.',
  })),
}, { additionalProperties: false });

export const TaskViewSchema = Type.Object({
  bucket_ingest_task_id: Type.String(),
  state: Type.Union(TASK_STATES.map((s) => Type.Literal(s))),
  state_description: Type.String(),
  poll_url: Type.String(),
  polling_guidance: Type.Object({ min_interval_seconds: Type.Integer(), max_interval_seconds: Type.Integer() }),
  project_id: Type.String(),
  source: Type.Object({
    type: Type.String(), bucket: Type.String(), prefix: Type.String(),
    region: Type.Union([Type.String(), Type.Null()]), endpoint: Type.Union([Type.String(), Type.Null()]),
  }),
  filter_glob: Type.Union([Type.String(), Type.Null()]),
  resume_state: Type.Union([Type.String(), Type.Null()], { description: 'Paused task: the phase resume returns to.' }),
  cancelled: Type.Boolean(),
  progress: Type.Object({
    files_found: Type.Integer(), files_pending: Type.Integer(), files_in_flight: Type.Integer(), files_done: Type.Integer(),
    files_failed: Type.Integer(), files_cancelled: Type.Integer(), bytes_found: Type.Integer(), bytes_ingested: Type.Integer(),
    listing_complete: Type.Boolean(),
  }),
  file_cap: Type.Integer(),
  stop_reason: Type.Union([Type.String(), Type.Null()]),
  run: Type.Integer({ description: '1 for the first run; +1 per retryFailed re-run and per sync run.' }),
  sync: Type.Union([Type.Null(), Type.Object({
    delete_missing: Type.Boolean(), interval_seconds: Type.Union([Type.Integer(), Type.Null()]),
    next_run_at: Type.Union([Type.String(), Type.Null()], { description: 'Start of the next run of a repeating task; null while a run is under way or none is scheduled.' }),
    files_new: Type.Integer(), files_changed: Type.Integer(), files_unchanged: Type.Integer(), files_deleted: Type.Integer(), files_failed: Type.Integer(),
  }, { description: 'Sync mode (extension, docs/sync.md): settings and the current run\'s counts.' })]),
  completion_targets: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
}, { $id: 'BucketIngestTask' });

export const RetryFailedResponse = Type.Intersect([Type.Ref('BucketIngestTask#'), Type.Object({ retried: Type.Integer() })]);

export const DryRunReportSchema = Type.Object({
  dry_run: Type.Literal(true),
  valid: Type.Boolean(),
  checks: Type.Object({ endpoint: Type.String(), list: Type.String(), read: Type.String() }),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  bucket_location: Type.Union([Type.String(), Type.Null()]),
  home_region: Type.Union([Type.String(), Type.Null()]),
  cross_region: Type.Union([Type.Boolean(), Type.Null()]),
  sample: Type.Array(Type.Object({ key: Type.String(), size: Type.Integer() })),
  objects_listed: Type.Integer(),
  objects_matched: Type.Integer(),
  bytes_matched: Type.Integer(),
  objects_too_large: Type.Integer(),
  listing_complete: Type.Boolean(),
  would_reach_file_cap: Type.Boolean(),
  would_reach_task_size_limit: Type.Boolean(),
  egress_estimate: Type.Union([Type.Null(), Type.Object({
    bytes: Type.Integer(), usd: Type.Number(), usd_per_gb: Type.Number(), lower_bound: Type.Boolean(), basis: Type.String(),
  })]),
  acknowledge_egress_cost_required: Type.Boolean(),
}, { additionalProperties: true, description: 'dry_run: validation report; nothing was created.' });

export const FailuresQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'Page size 1..1000 (default 100).' })),
  cursor: Type.Optional(Type.String({ maxLength: 4096 })),
});

export const FailuresPageSchema = Type.Object({
  bucket_ingest_task_id: Type.String(),
  failures: Type.Array(Type.Object({
    key: Type.String(), size: Type.Integer(), error_code: Type.Union([Type.String(), Type.Null()]),
    error_message: Type.Union([Type.String(), Type.Null()]), job_id: Type.Union([Type.String(), Type.Null()]), failed_at: Type.String(),
  })),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const CredentialsBody = Type.Object({ credentials: Credentials }, { additionalProperties: false });
