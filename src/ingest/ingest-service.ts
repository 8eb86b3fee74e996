// Accepting an ingest: validate the request, stream a raw body to the blob store (never whole in
// memory; over the limit aborts at once with 413), and enqueue the job. Returns the spec's PublicJob.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError } from '../internal/errors.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobQueue, JobRow } from '../jobs/queue.ts';
import { validateIngestHeaders, type IngestHeaders } from './ingest-request.ts';
import { checkReplay, findReplay, requestFingerprint, validateIdempotencyKey } from '../jobs/idempotency.ts';
import type { AttributeService } from '../attributes/attribute-service.ts';
import type { StoredAttributes } from '../attributes/types.ts';
import { sourceKeyFromHeader } from './source-identity.ts';

/** Spec `PublicJob`. */
export interface PublicJob {
  job_id: string;
  created_at: string;
  status: { job_id: string; status: JobRow['status']; code: number };
  properties: { file: { filename: string; size: number }; base_url?: string };
}

/** Payload stored with an ingest job; everything the pipeline needs. */
export interface IngestPayload {
  namespace: string;
  blobKey?: string;
  remoteUrl?: string;
  filename: string;
  /** The filename came from remoteUrl, so the fetch renames it after the final URL (after redirects). */
  filenameFromUrl?: boolean;
  mediaType?: string;
  baseUrl?: string;
  completion?: { url: string; headers?: Record<string, string> };
  unencryptedStrings: Record<string, string>;
  /** Citation URL to record on the document (e.g. `s3://bucket/key` for bucket ingests). */
  canonicalUrl?: string;
  /** Typed attribute values, resolved and registered at accept time; encrypted_text already hashed. */
  attributes: StoredAttributes;
  /**
   * Source identity (ingest/source-identity.ts): `id:<X-Source-ID>` or a bucket object's URL. A remote
   * ingest without it takes its final URL. A document of the same source is replaced.
   */
  sourceKey?: string;
  /** ETag of the bucket object, recorded on the document for sync comparisons. */
  sourceEtag?: string;
}

export const INGEST_JOB_KIND = 'ingest';

/** Retry-After of the in-flight cap, s: a guess at how soon a job of a busy project finishes. */
const INFLIGHT_RETRY_S = 10;

/** The 429 of the per-project in-flight cap: `n` unfinished ingest jobs found, at most `cap` allowed. */
function inflightRefusal(n: number, cap: number): AppError {
  return new AppError('rate_limited', `This project already has ${n} ingest jobs pending or processing (at most ${cap}); retry when some have finished.`,
    { scope: 'in-flight ingests per project', limit: cap, in_flight: n, retry_after_s: INFLIGHT_RETRY_S }, INFLIGHT_RETRY_S);
}

/** Blob key of a job's original file. */
export function originalBlobKey(projectId: string, jobId: string): string {
  return `projects/${projectId}/originals/${jobId}`;
}

/** Render a job row as the spec's PublicJob. */
export function toPublicJob(job: JobRow): PublicJob {
  const out: PublicJob = {
    job_id: job.id,
    created_at: job.created_at,
    status: { job_id: job.id, status: job.status, code: job.code },
    properties: { file: { filename: job.filename, size: Number(job.size) } },
  };
  if (job.base_url) out.properties.base_url = job.base_url;
  return out;
}

export class IngestService {
  /**
   * @param deps.maxInflight ingest jobs of one project accepted and not yet finished; past it createJob
   *        refuses with 429 rate_limited (0 or absent = no cap; docs/admission.md)
   */
  constructor(private readonly deps: {
    blobs: BlobStore; queue: JobQueue; net: NetGuard; maxUploadBytes: number; attributes?: AttributeService; maxInflight?: number;
  }) {}

  /** The in-flight cap, or undefined when there is none. */
  private get inflightCap(): number | undefined {
    const cap = this.deps.maxInflight ?? 0;
    return cap > 0 ? cap : undefined;
  }

  /**
   * Refuse a new ingest early while the project already has `maxInflight` unfinished ones, so a busy
   * project's upload is not read for nothing. Only a fast path: parallel requests all pass it before any
   * of their jobs exists, and the job is created by enqueueWithinCap, which checks again atomically.
   */
  private async checkInflight(projectId: string): Promise<void> {
    const cap = this.inflightCap;
    if (cap === undefined) return;
    const n = await this.deps.queue.countUnfinished(projectId, INGEST_JOB_KIND);
    if (n >= cap) throw inflightRefusal(n, cap);
  }

  /**
   * Create an ingestion job.
   * @param ctx   the caller's project
   * @param h     request headers (see IngestHeaders)
   * @param body  the raw request body stream (ignored when X-Remote-URL is used)
   * @throws AppError 400/403/413 as validateIngestHeaders documents; empty_body (400) for a 0-byte upload
   */
  async createJob(ctx: { projectId: string; namespace: string }, h: IngestHeaders, body: Readable | null): Promise<PublicJob> {
    const v = validateIngestHeaders(h, this.deps.net, this.deps.maxUploadBytes);
    // Idempotency-Key (docs/jobs.md): a retried request gets the job the first one created.
    const idemKey = validateIdempotencyKey(h.idempotencyKey);
    const sourceKey = sourceKeyFromHeader(h.sourceId);
    const fingerprint = idemKey ? requestFingerprint({ filename: v.filename, remoteUrl: v.remoteUrl }) : undefined;
    if (idemKey) {
      const prior = await findReplay(this.deps.queue, ctx.projectId, idemKey, fingerprint!);
      if (prior) {
        body?.resume();
        return toPublicJob(prior);
      }
    }
    // Typed attributes: checked against the registry before the upload (fails fast), registered and
    // hashed after it, right before the job is created (src/attributes).
    const attrs = this.deps.attributes;
    if (!attrs && (Object.keys(v.attributes.values).length || Object.keys(v.attributes.declared).length)) {
      throw new AppError('internal_error', 'Typed attributes are not configured on this server.');
    }
    await attrs?.precheck(ctx.projectId, v.attributes);
    await this.checkInflight(ctx.projectId);
    const jobId = crypto.randomUUID();
    let size = 0;
    let blobKey: string | undefined;
    if (!v.remoteUrl) {
      if (!body) throw new AppError('empty_body', 'The request body is empty.');
      blobKey = originalBlobKey(ctx.projectId, jobId);
      const max = this.deps.maxUploadBytes;
      size = await this.deps.blobs.put(blobKey, body, {
        maxBytes: max,
        onLimit: () => new AppError('payload_too_large', `The body exceeds ${max} bytes. Use X-Remote-URL for larger files.`, { max_bytes: max }),
      });
      if (size === 0) {
        await this.deps.blobs.delete(blobKey);
        throw new AppError('empty_body', 'The request body is empty.');
      }
    } else if (body) {
      body.resume(); // the body is optional with X-Remote-URL; discard it
    }
    let attributes: StoredAttributes;
    try {
      attributes = attrs ? await attrs.commit(ctx.projectId, v.attributes) : {};
    } catch (err) {
      if (blobKey) await this.deps.blobs.delete(blobKey).catch(() => undefined);
      throw err;
    }
    const payload: IngestPayload = {
      namespace: ctx.namespace,
      blobKey,
      remoteUrl: v.remoteUrl,
      filename: v.filename,
      ...(v.remoteUrl && v.filenameFromUrl ? { filenameFromUrl: true } : {}),
      baseUrl: v.baseUrl,
      completion: v.completion,
      unencryptedStrings: v.unencryptedStrings,
      attributes,
      ...(sourceKey ? { sourceKey } : {}),
    };
    try {
      // The document of a single-file ingest takes its job's id (docs/compat.md): clients of the modelled
      // API pass the job id as doc_filter. Job ids are fresh UUIDs, so no other document can hold it.
      const newJob = {
        id: jobId, projectId: ctx.projectId, kind: INGEST_JOB_KIND, filename: v.filename, size,
        baseUrl: v.baseUrl ?? null, docId: jobId, payload: payload as unknown as Record<string, unknown>,
      };
      const cap = this.inflightCap;
      const r = idemKey
        ? await this.deps.queue.enqueueIdempotent({ ...newJob, idempotencyKey: idemKey, requestFingerprint: fingerprint }, cap)
        : cap === undefined ? { row: await this.deps.queue.enqueue(newJob), created: true } : await this.deps.queue.enqueueWithinCap(newJob, cap);
      if ('refused' in r) throw inflightRefusal(r.refused, cap!);
      if ('created' in r && !r.created) {
        if (blobKey) await this.deps.blobs.delete(blobKey).catch(() => undefined);
        return toPublicJob(checkReplay(r.row, idemKey!, fingerprint!)!);
      }
      return toPublicJob(r.row);
    } catch (err) {
      if (blobKey) await this.deps.blobs.delete(blobKey).catch(() => undefined);
      throw err;
    }
  }
}
