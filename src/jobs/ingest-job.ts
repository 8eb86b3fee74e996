// Job kind "ingest": one file through the ingest pipeline. Retry policy: transient failures (remote
// fetch network errors, 5xx) retry with exponential backoff up to 3 attempts; input faults fail at once.
import type { JobKind } from './worker.ts';
import { runIngestJob, cleanupFailedJob, type PipelineDeps } from '../ingest/pipeline.ts';
import { INGEST_JOB_KIND } from '../ingest/ingest-service.ts';

export function ingestJobKind(deps: PipelineDeps): JobKind {
  return {
    kind: INGEST_JOB_KIND,
    handle: (job, signal) => runIngestJob(deps, job, signal),
    async afterFinish(job, outcome) {
      if (outcome.status === 'failed') await cleanupFailedJob(deps, job);
    },
  };
}
