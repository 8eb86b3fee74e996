// Turning one listed object into a normal ingest job: stream it from the bucket into the blob store
// (never whole in memory; 500 MB cap while streaming, since a listing's size can be stale), then — in
// one transaction — insert the ingest job under the id the file was given at listing time and mark the
// file queued. Because the job id is fixed up front, a restart between those steps re-fetches the object
// but can never enqueue it twice, and the document lands in the namespace exactly like a single upload.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { isUniqueViolation } from '../jobs/queue-support.ts';
import { INGEST_JOB_KIND, originalBlobKey, type IngestPayload } from '../ingest/ingest-service.ts';
import { cleanFilename } from '../ingest/ingest-request.ts';
import { bucketSourceKey } from '../ingest/source-identity.ts';
import { isSourceError, type BucketSource } from './sources/index.ts';
import type { FileRow, TaskRow, TaskStore } from './task-store.ts';
import { FETCH_ATTEMPTS, MAX_FILE_BYTES } from './limits.ts';
import type { PauseReason } from './task-states.ts';
import { addUsage } from './quotas.ts';

export interface MaterialiserDeps {
  store: TaskStore;
  queue: JobQueue;
  blobs: BlobStore;
  logger: Logger;
}

export type MaterialiseOutcome =
  | { kind: 'queued' }
  | { kind: 'failed'; code: string }
  | { kind: 'pause'; reason: PauseReason; message: string }
  | { kind: 'fatal'; message: string }
  | { kind: 'aborted' };

class TooLarge extends Error {}

/** File-system errors that mean our own store refuses writes (-> paused_destination_credential_error). */
const DESTINATION_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

async function fail(deps: MaterialiserDeps, file: FileRow, code: string, message: string): Promise<MaterialiseOutcome> {
  await deps.store.setFile(file.task_id, file.key, { state: 'failed', error_code: code, error_message: message.slice(0, 1000) }, ['fetching']);
  return { kind: 'failed', code };
}

/**
 * Materialise one file of `task` (which must be in state 'fetching').
 * @returns what happened; never throws for source or blob errors (they are classified)
 */
export async function materialiseFile(deps: MaterialiserDeps, task: TaskRow, file: FileRow, source: BucketSource, signal: AbortSignal): Promise<MaterialiseOutcome> {
  // A previous driver enqueued it and stopped before marking the file: just mark it.
  if (await deps.queue.get(file.job_id)) {
    await deps.store.setFile(task.id, file.key, { state: 'queued' }, ['fetching']);
    return { kind: 'queued' };
  }
  const blobKey = originalBlobKey(task.project_id, file.job_id);
  let size = 0;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) return { kind: 'aborted' };
    try {
      const stream = await source.open(file.key, signal);
      size = await deps.blobs.put(blobKey, stream, { maxBytes: MAX_FILE_BYTES, onLimit: () => new TooLarge() });
      break;
    } catch (err) {
      if (signal.aborted) return { kind: 'aborted' };
      if (err instanceof TooLarge) {
        return fail(deps, file, 'file_too_large', `The object is larger than ${MAX_FILE_BYTES} bytes (500 MB); bucket tasks do not take it.`);
      }
      const fsCode = (err as NodeJS.ErrnoException).code;
      if (fsCode && DESTINATION_CODES.has(fsCode) && !isSourceError(err)) {
        return { kind: 'pause', reason: 'destination', message: `Our blob store refused a write (${fsCode}); the task resumes from here once that is fixed.` };
      }
      if (isSourceError(err)) {
        if (err.kind === 'auth') return { kind: 'pause', reason: 'credential', message: `The bucket refused the credentials while reading ${file.key}: ${err.message}` };
        if (err.kind === 'forbidden_endpoint') return { kind: 'fatal', message: err.message };
        if (err.kind === 'object_not_found') return fail(deps, file, 'source_object_missing', 'The object was listed but no longer exists in the bucket.');
        if (err.kind === 'bucket_not_found') return { kind: 'fatal', message: `The bucket no longer exists: ${err.message}` };
        if (err.kind === 'invalid') return fail(deps, file, 'source_fetch_failed', `Reading the object failed: ${err.message}`);
      }
      if (attempt >= FETCH_ATTEMPTS) {
        return fail(deps, file, 'source_fetch_failed', `Reading the object failed ${attempt} times: ${(err as Error).message}`);
      }
      deps.logger.warn({ task_id: task.id, key: file.key, attempt, err: (err as Error).message }, 'bucket object fetch failed, retrying');
      await sleep(500 * 2 ** (attempt - 1), signal);
    }
  }
  const filename = cleanFilename(file.key) || 'unnamed';
  const payload: IngestPayload = {
    namespace: task.namespace, blobKey, filename, unencryptedStrings: {}, attributes: {},
    canonicalUrl: bucketSourceKey(task.source_type, task.bucket, file.key),
    // The object is the document's source: ingesting it again replaces the document (docs/sync.md).
    sourceKey: bucketSourceKey(task.source_type, task.bucket, file.key),
    ...(file.etag ? { sourceEtag: file.etag } : {}),
  };
  try {
    const queued = await deps.store.cp.db.transaction().execute(async (trx) => {
      if (!(await deps.store.setFile(task.id, file.key, { state: 'queued', size }, ['fetching'], trx))) return false;
      await deps.queue.enqueue({
        id: file.job_id, projectId: task.project_id, kind: INGEST_JOB_KIND, filename, size,
        docId: crypto.randomUUID(), payload: payload as unknown as Record<string, unknown>,
      }, trx);
      await addUsage(trx, task.account_id, size, 1);
      return true;
    });
    if (!queued) {
      await deps.blobs.delete(blobKey).catch(() => undefined); // cancelled meanwhile
      return { kind: 'aborted' };
    }
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await deps.store.setFile(task.id, file.key, { state: 'queued' }, ['fetching']);
  }
  return { kind: 'queued' };
}
