// Job kind "ingest": one file through the ingest pipeline. Retry policy: transient failures (remote
// fetch network errors, 5xx) retry with exponential backoff up to 3 attempts; input faults fail at once.
// An index built by another embedder fails the job with embedder_mismatch (docs/reindex.md).
// The document row is inserted in the same transaction that marks the job done (JobContext.commitDone),
// and a failed or cancelled job's chunks and original upload are removed by `cleanup`.
import type { JobKind } from './worker.ts';
import { isAppError } from '../internal/errors.ts';
import type { JobRow } from './queue.ts';
import { cleanupFailedJob, runIngestJob, type PipelineDeps } from '../ingest/pipeline.ts';
import { INGEST_JOB_KIND, originalBlobKey, type IngestPayload } from '../ingest/ingest-service.ts';

/**
 * Remove what a failed or cancelled ingest left: its chunks, its extracted assets and its original upload,
 * unless a committed document owns that blob (never the case for a failed job, checked anyway).
 */
export async function cleanupIngestJob(deps: PipelineDeps, job: JobRow): Promise<void> {
  const payload = JSON.parse(job.payload) as IngestPayload;
  // Only the rows of the document it would have created: a job that replaced a document never removes
  // that document's rows (its index swap already made them the document's).
  await deps.index.deleteByJob(payload.namespace, job.id, job.doc_id ?? undefined); // throws, so the durable cleanup job retries
  await cleanupFailedJob(deps, job); // everything else the pipeline may have stored (assets)
  const owned = await deps.cp.db.selectFrom('documents').select('doc_id')
    .where('project_id', '=', job.project_id).where('source_job_id', '=', job.id).executeTakeFirst();
  if (!owned) await deps.blobs.delete(payload.blobKey ?? originalBlobKey(job.project_id, job.id));
}

export function ingestJobKind(deps: PipelineDeps): JobKind {
  return {
    kind: INGEST_JOB_KIND,
    handle: (job, signal, ctx) => runIngestJob(deps, job, signal, ctx).catch((err: unknown) => {
      // The namespace was built by another embedder: say so, and what fixes it, instead of a bare server error.
      if (!isAppError(err) || err.code !== 'embedder_mismatch') throw err;
      return { status: 'failed' as const, code: 500, errorCode: err.code, errorMessage: `${err.message}. Reindex the namespace with the running embedder (POST /v3/docsearch/reindex) and ingest again.` };
    }),
    cleanup: (job) => cleanupIngestJob(deps, job),
  };
}
