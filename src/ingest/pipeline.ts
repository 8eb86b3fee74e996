// The ingest pipeline run by a worker for one job: load the bytes (blob or remote URL) -> parse ->
// chunk -> analyse + embed -> write chunks to the namespace index -> commit the document row. The
// document becomes visible only at that last step; chunks written by an earlier, interrupted attempt of
// the same job are removed first, so a retry never duplicates (DESIGN.md §2 two-store consistency).
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../internal/errors.ts';
import { readBodyCapped, type NetGuard } from '../internal/net-guard.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { ControlPlane } from '../storage/db.ts';
import { nowIso } from '../storage/db.ts';
import type { NamespaceIndex } from '../storage/namespace-index.ts';
import type { Embedder } from '../models/embedder.ts';
import type { Db, JobRow, JobOutcome } from '../jobs/queue.ts';
import { RetryableError, type JobContext } from '../jobs/worker.ts';
import { insertAbbreviations } from '../storage/abbreviation-store.ts';
import { ParseError, type ParsedDocument } from './parse/types.ts';
import { imageCountOf, type ChunkedDocument } from './chunking/chunker.ts';
import { documentRows, parseBytes, type DocumentRows } from './document-rows.ts';
import { extensionOf, filenameFromDisposition, filenameFromUrl } from './ingest-request.ts';
import { originalBlobKey, type IngestPayload } from './ingest-service.ts';
import type { ParseRunner } from './isolation/parse-runner.ts';
import { assetPrefix, saveAssets } from './assets/asset-store.ts';
import { resolveRemoteImages } from './assets/remote-images.ts';
import type { CommitGroups, CommitTiming } from './commit-groups.ts';
import { contentHash, documentOfSource, isUnchanged } from './source-identity.ts';
import { keepUnchanged, switchDocument } from './source-replacement.ts';
import { isUniqueViolation } from '../jobs/queue-support.ts';
import { StageClock, type IngestStageTimes } from './stage-times.ts';

/** Longest document title kept (characters); defined with the row building (document-rows.ts). */
export { TITLE_MAX } from './document-rows.ts';

export interface PipelineDeps {
  cp: ControlPlane;
  blobs: BlobStore;
  index: NamespaceIndex;
  embedder: Embedder;
  net: NetGuard;
  maxRemoteBytes: number;
  logger: Logger;
  /** Runs parsing in bounded child processes; without it parsing runs in this thread. */
  parser?: ParseRunner;
  /** Commits the rows of the jobs of this process in groups, under the namespace's writer lease. */
  commits: CommitGroups;
  /** Called after a document was committed, so index maintenance can be scheduled. */
  onDocumentCommitted?: (namespace: string) => void;
  /**
   * Receives the stage times (ms) of each job that committed a document, its group's `write` and
   * `index_refresh` included (metrics; ingest/stage-times.ts). The pipeline also logs them.
   */
  onStageTimes?: (times: IngestStageTimes) => void;
}

const MEDIA_TYPE_EXT: Record<string, string> = {
  'application/pdf': 'pdf', 'text/html': 'html', 'application/xhtml+xml': 'html', 'text/plain': 'txt',
  'text/markdown': 'md', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

function failed(code: number, errorCode: string, errorMessage: string): JobOutcome {
  return { status: 'failed', code, errorCode, errorMessage };
}

/** Download X-Remote-URL through the SSRF guard; returns bytes, final URL and media type. */
async function fetchRemote(deps: PipelineDeps, url: string, signal: AbortSignal): Promise<{ data: Buffer; finalUrl: string; mediaType?: string; dispositionName?: string } | JobOutcome> {
  let res;
  try {
    res = await deps.net.fetch(url, { signal, timeoutMs: 60_000 });
  } catch (err) {
    if (isAppError(err)) return failed(424, err.code, err.message);
    throw new RetryableError(`fetching ${url} failed: ${(err as Error).message}`);
  }
  if (res.statusCode >= 500) {
    await res.body.dump();
    throw new RetryableError(`fetching ${url} answered ${res.statusCode}`);
  }
  if (res.statusCode >= 400) {
    await res.body.dump();
    return failed(424, 'remote_fetch_failed', `Fetching the remote URL answered HTTP ${res.statusCode}.`);
  }
  const data = await readBodyCapped(res.body, deps.maxRemoteBytes);
  if (!data) return failed(413, 'payload_too_large', `The remote file exceeds ${deps.maxRemoteBytes} bytes.`);
  const ct = String(res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() || undefined;
  const cd = res.headers['content-disposition'];
  return { data, finalUrl: res.url, mediaType: ct, dispositionName: filenameFromDisposition(typeof cd === 'string' ? cd : undefined) };
}

/**
 * Run one ingest job to a terminal outcome.
 * @returns done (200) with the committed doc id, or failed with a 4xx code when the input is at fault.
 * @throws RetryableError for transient failures (network, 5xx from the remote); other errors -> 500.
 */
export async function runIngestJob(deps: PipelineDeps, job: JobRow, signal: AbortSignal, ctx?: JobContext): Promise<JobOutcome & { docId?: string }> {
  const payload = JSON.parse(job.payload) as IngestPayload;
  const ns = payload.namespace;
  // A previous attempt may have committed just before dying: then the job is done.
  const existing = await deps.cp.db.selectFrom('documents').select('doc_id')
    .where('project_id', '=', job.project_id).where('source_job_id', '=', job.id).executeTakeFirst();
  if (existing) return { status: 'done', code: 200, docId: existing.doc_id };

  const clock = new StageClock();
  let data: Buffer;
  let filename = payload.filename;
  let canonicalUrl = payload.canonicalUrl ?? '';
  let mediaType = payload.mediaType;
  const blobKey = payload.blobKey ?? originalBlobKey(job.project_id, job.id);
  if (payload.remoteUrl) {
    const r = await fetchRemote(deps, payload.remoteUrl, signal);
    if ('status' in r) return r;
    data = r.data;
    canonicalUrl = r.finalUrl;
    mediaType = r.mediaType;
    // The server's Content-Disposition names the file, else the final URL (after redirects) when the
    // name came from the URL at all (`/download` -> `/files/notes.md` is a .md).
    if (r.dispositionName) filename = r.dispositionName;
    else if (payload.filenameFromUrl) filename = filenameFromUrl(new URL(r.finalUrl));
    if (!extensionOf(filename) && mediaType && MEDIA_TYPE_EXT[mediaType]) filename = `${filename}.${MEDIA_TYPE_EXT[mediaType]}`;
    await deps.blobs.put(blobKey, Readable.from([data]));
    await deps.cp.db.updateTable('jobs').set({ size: data.length, filename }).where('id', '=', job.id).execute();
  } else {
    data = await deps.blobs.get(blobKey);
  }
  if (data.length === 0) return failed(422, 'empty_document', 'The file is empty.');
  // Source identity: the same source again replaces its document; the same bytes change nothing.
  const sourceKey = payload.sourceKey ?? (payload.remoteUrl ? canonicalUrl : undefined);
  const hash = await contentHash(data);
  const current = sourceKey ? await documentOfSource(deps.cp, job.project_id, sourceKey) : undefined;
  if (current?.state === 'deleting') throw new RetryableError(`the document of source ${sourceKey} is being deleted`);
  const attributesJson = JSON.stringify(payload.attributes ?? {});
  const stringsJson = JSON.stringify(payload.unencryptedStrings ?? {});
  if (current && isUnchanged(current, { contentHash: hash, filename, attributes: attributesJson, unencryptedStrings: stringsJson })) {
    return keepUnchanged(deps, job, current, blobKey, payload.sourceEtag, ctx);
  }
  const docId = current?.doc_id ?? job.doc_id!;
  clock.lap('load');

  let parsed: ParsedDocument;
  let chunked: ChunkedDocument;
  ctx?.progress?.({ stage: 'parsing' });
  const onPages = (pagesParsed: number, pagesTotal: number) => ctx?.progress?.({ stage: 'parsing', pages_total: pagesTotal, pages_parsed: pagesParsed });
  try {
    // Parsing and chunking grow with the document: in the parse child, off this event loop.
    ({ parsed, chunked } = await parseBytes({ data, filename, mediaType }, deps.parser, { signal, onPages, clock }));
  } catch (err) {
    if (err instanceof ParseError) return failed(err.jobCode, err.errorCode, err.message);
    throw err;
  }
  if (signal.aborted) return failed(500, 'aborted', 'aborted');
  // X-Base-URL (else the remote file's own URL) resolves linked images of HTML/Markdown.
  await resolveRemoteImages(deps.net, parsed, payload.baseUrl ?? (canonicalUrl || undefined), { signal });
  chunked.imageCount = imageCountOf(parsed);
  clock.lap('figures');
  if (chunked.chunks.length === 0) {
    return failed(422, 'no_extractable_text', 'No text could be extracted from the file.');
  }
  let built: DocumentRows;
  try {
    built = await documentRows(deps.embedder, { parsed, chunked }, { docId, jobId: job.id, filename, attributes: payload.attributes },
      { signal, progress: ctx?.progress ? (p) => ctx.progress!(p) : undefined, clock });
  } catch (err) {
    if (signal.aborted) return failed(500, 'aborted', 'aborted');
    throw err;
  }
  const { rows, title, lang } = built;
  const docRow = {
    project_id: job.project_id, doc_id: docId, state: 'visible', title, language: lang.bcp47,
    filename, canonical_url: canonicalUrl, content_type: mediaType ?? '', pages: parsed.pages,
    chunkset_count: chunked.chunksetCount, chunk_count: rows.length, image_count: chunked.imageCount,
    table_count: chunked.tableCount, ingested_at: nowIso(), source_job_id: job.id, bm25_state: 'indexed',
    blob_key: blobKey, size: data.length, attributes: attributesJson, unencrypted_strings: stringsJson,
    source_key: sourceKey ?? null, source_etag: payload.sourceEtag ?? null, content_hash: hash,
  } as const;
  const abbreviations = built.abbreviations;
  clock.lap('analyse');
  const report = (commitTiming: CommitTiming) => {
    // The group's stages come from the commit; the rest of its time is this job's finalize / commit.
    const groupMs = commitTiming.wait + commitTiming.write + commitTiming.indexRefresh;
    clock.add('commit_wait', commitTiming.wait);
    clock.add('write', commitTiming.write);
    clock.add('index_refresh', commitTiming.indexRefresh);
    clock.add('commit', clock.take() - groupMs);
    deps.onStageTimes?.(clock.times);
    deps.logger.info({ job_id: job.id, doc_id: docId, pages: parsed.pages, chunks: rows.length, group_docs: commitTiming.groupDocs, stages_ms: clock.rounded() }, 'ingest stages');
  };
  if (current) {
    // The document's rows are swapped for these in one commit, and its row is switched right after,
    // under the same writer lease (source-replacement.ts).
    const timing = await deps.commits.commit(ns, job.id, rows, deps.embedder.signature, {
      docId, finalize: () => switchDocument(deps, job, current, docRow, parsed, abbreviations, ctx),
    });
    report(timing);
    deps.onDocumentCommitted?.(ns);
    return { status: 'done', code: 200, docId };
  }
  // Rows of an earlier attempt are removed, these appended and folded into the BM25 index (done means
  // searchable), together with the other jobs of this process waiting for the namespace.
  const timing = await deps.commits.commit(ns, job.id, rows, deps.embedder.signature);
  if (signal.aborted) {
    await deps.index.deleteByJob(ns, job.id, docId).catch(() => undefined);
    return failed(500, 'aborted', 'aborted');
  }
  // Figures and tables go to the blob store before the document becomes visible.
  await saveAssets(deps.blobs, job.project_id, docId, parsed);
  // With a job context the row is inserted in the transaction that marks the job done, so a
  // cancelled job can never leave a visible document and a done job always has one.
  // Its abbreviations go in the same transaction: a query expands a short form exactly when it can find the
  // document that defines it.
  const commit = async (trx: Db) => {
    await trx.insertInto('documents').values(docRow).execute();
    await insertAbbreviations(trx, job.project_id, docId, abbreviations);
  };
  try {
    if (ctx) await ctx.commitDone(docId, commit);
    else await deps.cp.db.transaction().execute(commit);
  } catch (err) {
    // Another job of the same source committed first: this one retries as its replacement.
    if (!isUniqueViolation(err)) throw err;
    await deps.index.deleteByJob(ns, job.id, docId).catch(() => undefined);
    throw new RetryableError(`another document of source ${sourceKey} was committed meanwhile`);
  }
  report(timing);
  deps.onDocumentCommitted?.(ns);
  return { status: 'done', code: 200, docId };
}

/** Remove whatever a failed job left in the data plane (chunks of its attempt). */
export async function cleanupFailedJob(deps: PipelineDeps, job: JobRow): Promise<void> {
  const payload = JSON.parse(job.payload) as IngestPayload;
  await deps.index.deleteByJob(payload.namespace, job.id, job.doc_id ?? undefined).catch((err) => {
    if (!(err instanceof AppError)) deps.logger.warn({ err, job_id: job.id }, 'cleanup of failed job chunks failed');
  });
  if (job.doc_id) await deps.blobs.deletePrefix(assetPrefix(job.project_id, job.doc_id)).catch(() => undefined);
}
