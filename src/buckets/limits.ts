// The bucket-ingest limits of the spec ("Limits" table, ingestBucket rows) and the few operational
// constants of the task driver, in one place so the docs, the API and the driver agree.

/** Largest single object taken from a bucket (spec: 500 MB). Larger objects are failures, never fetched. */
export const MAX_FILE_BYTES = 500 * 1024 * 1024;
/** Largest total size of one task (spec: 500 GB); objects past it are not taken (task ends done_with_errors). */
export const MAX_TASK_BYTES = 500 * 1024 ** 3;
/** Files processed at once per account (spec: 100): objects being fetched plus their queued/running ingest jobs. */
export const MAX_FILES_IN_FLIGHT = 100;
/** Target ceiling of the per-task file cap (spec); the cap in force is DOCSEARCH_BUCKET_FILE_CAP (default this). */
export const FILE_CAP_CEILING = 100_000;
/** Max bytes of the X-Completion header on ingestBucket (spec). */
export const MAX_COMPLETION_HEADER_BYTES = 1024;
/** Active bucket tasks per account (spec). Enforced by a partial unique index too. */
export const MAX_ACTIVE_TASKS_PER_ACCOUNT = 1;

/** Objects asked for per listing call (S3's and GCS's page maximum). */
export const LIST_PAGE_SIZE = 1000;
/** Listing runs ahead of fetching by at most this many not-yet-started files. */
export const LIST_AHEAD = 2 * LIST_PAGE_SIZE;
/** Attempts to fetch one object on transient errors (network, 5xx) before it is recorded as failed. */
export const FETCH_ATTEMPTS = 3;
/** Consecutive transient listing failures before the task fails. */
export const LIST_ATTEMPTS = 5;
/** Polling guidance returned with every task view, seconds. */
export const POLLING_GUIDANCE = { min_interval_seconds: 5, max_interval_seconds: 60 } as const;

/**
 * Rough cross-region transfer price used by dry runs, USD per GB (10^9 bytes): the list price of
 * inter-region data transfer on AWS (us/eu regions) and of GCS cross-region replication within a
 * continent, both $0.02/GB at the time of writing. Internet egress costs more; the estimate says so.
 */
export const CROSS_REGION_USD_PER_GB = 0.02;
