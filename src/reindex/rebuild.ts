// The work of an online reindex: make a new generation's table hold what the serving table holds, each
// document rebuilt from its stored original with the running embedder and analyser (docs/reindex.md).
// The serving table is the reference, compared by (document, job, chunk count): a document there that the
// new generation lacks, or has from another job, is rebuilt; a document the new generation has and the
// serving table no longer has (deleted meanwhile) is removed. Rounds repeat while ingests and deletes keep
// changing the serving table; the caller runs the last round with commits held off, then switches. A
// round after a crash starts from what the new generation already holds, so the work continues.
import type { Logger } from 'pino';
import type { BlobStore } from '../storage/blob-store.ts';
import type { ControlPlane } from '../storage/db.ts';
import type { ChunkRecord, DocJobRows, NamespaceIndex } from '../storage/namespace-index.ts';
import type { Embedder } from '../models/embedder.ts';
import { AppError } from '../internal/errors.ts';
import { documentRows, parseBytes, ParseError } from '../ingest/document-rows.ts';
import type { ParseRunner } from '../ingest/isolation/parse-runner.ts';
import { INGEST_JOB_KIND, originalBlobKey, type IngestPayload } from '../ingest/ingest-service.ts';

export interface RebuildDeps {
  cp: ControlPlane;
  index: NamespaceIndex;
  blobs: BlobStore;
  embedder: Embedder;
  logger: Logger;
  /** Parses in bounded child processes; without it parsing runs in this thread. */
  parser?: ParseRunner;
}

/** Rows per append to the new generation at most (one Lance commit; bounds the memory a round holds). */
const APPEND_ROWS = 2_000;
/**
 * Longest time rebuilt rows wait for their append, ms: what a crash can make an attempt redo (its next
 * attempt continues from what is appended), at the cost of one small commit per period.
 */
const APPEND_EVERY_MS = 2_000;
/** Documents removed from the new generation per commit. */
const REMOVE_BATCH = 500;

/** What one round found to do. */
export interface RoundWork {
  /** (document, job) pairs of the serving table to rebuild into the new generation. */
  build: DocJobRows[];
  /** Documents whose rows in the new generation go first (deleted, replaced or incomplete). */
  remove: string[];
  /** Chunks of the serving table (for progress). */
  servingChunks: number;
}

const pairKey = (doc: string, job: string): string => `${doc}\u0000${job}`;

/** Counts a rebuild reports as its job's progress. */
export interface RebuildCounts {
  documents_total: number;
  documents_done: number;
  chunks_total: number;
  chunks_done: number;
}

export class Rebuild {
  /**
   * Pairs rebuilt by this attempt and the rows they got: the count the new generation must hold for them
   * (it may differ from the serving table's when the chunker changed).
   */
  private readonly rebuilt = new Map<string, number>();
  /** Pairs with no original to rebuild from (rows of a job that failed: recovery removes them). */
  private readonly orphans = new Set<string>();
  readonly counts: RebuildCounts = { documents_total: 0, documents_done: 0, chunks_total: 0, chunks_done: 0 };

  /**
   * @param namespace the serving namespace
   * @param target    the new generation's table, addressed by its own name (index-build.ts generationTable)
   */
  constructor(private readonly deps: RebuildDeps, private readonly projectId: string, private readonly namespace: string,
    private readonly target: string, private readonly signal: AbortSignal, private readonly onProgress: (c: RebuildCounts) => void) {}

  /** Compare the serving table with the new generation. */
  async plan(): Promise<RoundWork> {
    const [serving, built] = await Promise.all([this.deps.index.listDocJobs(this.namespace), this.deps.index.listDocJobs(this.target)]);
    const servingKeys = new Map(serving.map((e) => [pairKey(e.doc_id, e.source_job_id), e]));
    const builtKeys = new Map(built.map((e) => [pairKey(e.doc_id, e.source_job_id), e]));
    const builtDocs = new Set(built.map((e) => e.doc_id));
    const build = serving.filter((e) => {
      const key = pairKey(e.doc_id, e.source_job_id);
      if (this.orphans.has(key)) return false;
      const have = builtKeys.get(key);
      return !have || have.chunks !== (this.rebuilt.get(key) ?? e.chunks);
    });
    const remove = new Set(built.filter((e) => !servingKeys.has(pairKey(e.doc_id, e.source_job_id))).map((e) => e.doc_id));
    for (const e of build) if (builtDocs.has(e.doc_id)) remove.add(e.doc_id);
    return { build, remove: [...remove], servingChunks: serving.reduce((n, e) => n + e.chunks, 0) };
  }

  /**
   * Apply one round's work to the new generation. Before the last round a document whose original cannot
   * be read is left for the next round (a replacement may have removed it after the plan was made).
   * @throws when a document cannot be rebuilt: it no longer parses, or (last round) its original is unreadable
   */
  async apply(work: RoundWork, last: boolean): Promise<void> {
    for (let i = 0; i < work.remove.length; i += REMOVE_BATCH) {
      await this.deps.index.deleteDocuments(this.target, work.remove.slice(i, i + REMOVE_BATCH));
    }
    this.counts.documents_total = this.counts.documents_done + work.build.length;
    this.counts.chunks_total = work.servingChunks;
    let pending: ChunkRecord[] = [];
    let flushedAt = Date.now();
    const flush = async () => {
      flushedAt = Date.now();
      if (pending.length === 0) return;
      await this.deps.index.addChunks(this.target, pending, this.deps.embedder.signature);
      this.counts.chunks_done += pending.length;
      pending = [];
    };
    for (const e of work.build) {
      if (this.signal.aborted) throw new AppError('internal_error', 'reindex stopped');
      let rows: ChunkRecord[] | null;
      try {
        rows = await this.rowsOf(e);
      } catch (err) {
        if (last || !(err instanceof AppError && err.details?.unreadable)) throw err;
        this.deps.logger.info({ doc_id: e.doc_id, err: err.message }, 'reindex: original unreadable; the next round looks again');
        continue;
      }
      const key = pairKey(e.doc_id, e.source_job_id);
      if (rows === null) this.orphans.add(key);
      else {
        pending.push(...rows);
        this.rebuilt.set(key, rows.length);
      }
      this.counts.documents_done++;
      if (pending.length >= APPEND_ROWS || Date.now() - flushedAt >= APPEND_EVERY_MS) await flush();
      this.onProgress(this.counts);
    }
    await flush();
    this.onProgress(this.counts);
  }

  /**
   * The rows of one document as the running software builds them from its original, written as job
   * `e.source_job_id` (so deletes by job keep working); null when the rows belong to no document or
   * unfinished ingest (a failed job's leftovers) or to a document being deleted.
   * @throws AppError reindex_failed naming the document when its original is missing or no longer parses
   */
  private async rowsOf(e: DocJobRows): Promise<ChunkRecord[] | null> {
    const source = await this.sourceOf(e);
    if (!source) return null;
    let data: Buffer;
    try {
      data = await this.deps.blobs.get(source.blobKey);
    } catch (err) {
      throw new AppError('internal_error', `reindex: the original of document ${e.doc_id} (${source.blobKey}) could not be read: ${(err as Error).message}`, { doc_id: e.doc_id, unreadable: true });
    }
    try {
      const parsed = await parseBytes({ data, filename: source.filename, mediaType: source.mediaType }, this.deps.parser, { signal: this.signal });
      const built = await documentRows(this.deps.embedder, parsed, { docId: e.doc_id, jobId: e.source_job_id, filename: source.filename, attributes: source.attributes }, { signal: this.signal });
      return built.rows;
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      throw new AppError('internal_error', `reindex: document ${e.doc_id} no longer parses (${err.errorCode}: ${err.message})`, { doc_id: e.doc_id });
    }
  }

  /** Where a (document, job) pair's original and ingest options are: its documents row, else its unfinished job. */
  private async sourceOf(e: DocJobRows): Promise<{ blobKey: string; filename: string; mediaType?: string; attributes: unknown } | null> {
    const { db } = this.deps.cp;
    const doc = await db.selectFrom('documents').select(['state', 'source_job_id', 'blob_key', 'filename', 'content_type', 'attributes'])
      .where('project_id', '=', this.projectId).where('doc_id', '=', e.doc_id).executeTakeFirst();
    if (doc?.state === 'deleting') return null;
    if (doc && doc.source_job_id === e.source_job_id) {
      return { blobKey: doc.blob_key, filename: doc.filename, mediaType: doc.content_type || undefined, attributes: JSON.parse(doc.attributes) };
    }
    // Rows committed by a job that has not made its document visible yet (it does so next), or a replacement
    // whose switch of the documents row follows its index swap.
    const job = await db.selectFrom('jobs').select(['kind', 'status', 'payload', 'filename']).where('id', '=', e.source_job_id).executeTakeFirst();
    if (!job || job.kind !== INGEST_JOB_KIND || job.status === 'failed') return null;
    const payload = JSON.parse(job.payload) as IngestPayload;
    if (payload.namespace !== this.namespace) return null;
    return {
      blobKey: payload.blobKey ?? originalBlobKey(this.projectId, e.source_job_id), filename: job.filename,
      mediaType: payload.mediaType, attributes: payload.attributes,
    };
  }
}
