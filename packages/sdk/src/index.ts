// @docsearch/sdk — typed client for the docsearch v3 HTTP API. Entry point: `new DocsearchClient({ baseUrl, apiKey })`.
export { DocsearchClient, type DocsearchClientOptions } from './client.ts';
export { DocsearchError, type ErrorBody } from './errors.ts';
export { parseRetryAfter, retryDelayMs, RETRY_STATUSES, type RetryOptions } from './retry.ts';
export type { WatchJobOptions } from './job-stream.ts';
export { evaluationTable } from './evaluation-table.ts';
export { readJobProgress, type JobProgressReading } from './job-progress.ts';
export type * from './types.ts';
export type { paths, components, operations } from './generated/openapi.ts';
