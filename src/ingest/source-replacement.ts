// The control-plane side of ingesting a source that already has a document (ingest/source-identity.ts):
// either nothing changed (the job is done with the existing document, nothing is re-indexed) or the
// document is switched to the new version. The switch runs right after the index swapped the document's
// rows in one commit, under the same writer lease (commit-groups.ts), so the row (title, attributes,
// strings, counts, source job) and the rows in the index change together and in the same order for
// every replacement of a document (docs/decisions/2026-11-29-source-replacement.md).
import type { KeyedDefinition } from '../analysis/abbreviations.ts';
import type { Insertable } from 'kysely';
import type { Db, JobRow, JobOutcome } from '../jobs/queue.ts';
import { JobLostError } from '../jobs/queue.ts';
import { RetryableError, type JobContext } from '../jobs/worker.ts';
import { deleteAbbreviations, insertAbbreviations } from '../storage/abbreviation-store.ts';
import type { DocumentsTable } from '../storage/schema.ts';
import { assetPrefix, saveAssets } from './assets/asset-store.ts';
import type { ParsedDocument } from './parse/types.ts';
import type { PipelineDeps } from './pipeline.ts';
import type { DocumentRow } from './source-identity.ts';

/**
 * Finish a job whose bytes, name, attributes and strings equal its source's document: done with that
 * document's id (only a new ETag is recorded), and the job's own copy of the original removed.
 */
export async function keepUnchanged(deps: PipelineDeps, job: JobRow, current: DocumentRow, blobKey: string, sourceEtag: string | undefined, ctx?: JobContext): Promise<JobOutcome & { docId: string }> {
  const work = async (trx: Db) => {
    if (sourceEtag === undefined || sourceEtag === current.source_etag) return;
    await trx.updateTable('documents').set({ source_etag: sourceEtag })
      .where('project_id', '=', job.project_id).where('doc_id', '=', current.doc_id).execute();
  };
  if (ctx) await ctx.commitDone(current.doc_id, work);
  else await deps.cp.db.transaction().execute(work);
  if (blobKey !== current.blob_key) await deps.blobs.delete(blobKey).catch(() => undefined);
  return { status: 'done', code: 200, docId: current.doc_id };
}

/**
 * Switch document `current` to the version `next` describes, after the index swapped its rows: its
 * assets are replaced, then its row, its abbreviations and the job's `done` in one transaction.
 * A job cancelled after the swap still gets its row switched (the index already serves the new version)
 * and then fails as cancelled. A document deleted during the replacement has the swapped rows removed
 * and the job retries as a new document.
 * @throws RetryableError when the document disappeared; JobLostError when the job was cancelled
 */
export async function switchDocument(deps: PipelineDeps, job: JobRow, current: DocumentRow, next: Insertable<DocumentsTable>,
  parsed: ParsedDocument, abbreviations: readonly KeyedDefinition[], ctx?: JobContext): Promise<void> {
  const { project_id: projectId, doc_id: docId, ...fields } = next;
  const payload = JSON.parse(job.payload) as { namespace: string };
  await deps.blobs.deletePrefix(assetPrefix(projectId, docId));
  await saveAssets(deps.blobs, projectId, docId, parsed);
  let gone = false;
  const update = async (trx: Db) => {
    const r = await trx.updateTable('documents').set(fields)
      .where('project_id', '=', projectId).where('doc_id', '=', docId).where('state', '=', 'visible').executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) {
      gone = true;
      return;
    }
    await deleteAbbreviations(trx, projectId, docId);
    await insertAbbreviations(trx, projectId, docId, abbreviations);
  };
  try {
    if (ctx) {
      await ctx.commitDone(docId, async (trx) => {
        await update(trx);
        if (gone) throw new RetryableError(`document ${docId} was deleted while it was being replaced`);
      });
    } else await deps.cp.db.transaction().execute(update);
  } catch (err) {
    if (err instanceof JobLostError) await deps.cp.db.transaction().execute(update);
    if (gone) await deps.index.deleteDocument(payload.namespace, docId);
    throw err;
  }
  if (gone) {
    await deps.index.deleteDocument(payload.namespace, docId);
    throw new RetryableError(`document ${docId} was deleted while it was being replaced`);
  }
  // The previous version's original goes; the document's blob is the new one now.
  if (current.blob_key !== next.blob_key) await deps.blobs.delete(current.blob_key).catch(() => undefined);
}
