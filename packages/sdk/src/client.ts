// DocsearchClient: one method per operation of the docsearch v3 API (named after the OpenAPI
// operationIds), typed with the generated types, plus the conveniences every client needs: upload a
// file from disk, follow a job's status stream, wait for a job to finish.
import { DocsearchError } from './errors.ts';
import { watchJob, type WatchJobOptions } from './job-stream.ts';
import { seg, Transport, type TransportOptions } from './transport.ts';
import type {
  AttributeList, BucketIngestCreated, BucketIngestFailures, BucketIngestTask, CreateBucketIngestRequest, CreatedProject,
  CreateProjectRequest, DeleteDocResponse, DeleteJobResponse, DocInfo, IngestOptions, JobStatus, JobStatusEvent,
  ListDocsResponse, LoginResponse, ProjectList, PublicJob, RetrievalContext, SearchInDocRequest, SearchRequest,
  SearchResponse, SearchResult, UpdateBucketCredentialsRequest, CreateEvaluationRequest, Evaluation, EvaluationList,
  DeleteEvaluationResponse, IndexDescription, ReindexJob,
} from './types.ts';

export type DocsearchClientOptions = TransportOptions;
type Opts = { signal?: AbortSignal };
type FileBody = Blob | ArrayBuffer | ArrayBufferView | string;

const jsonHeader = (v: unknown): string | undefined => (v === undefined ? undefined : JSON.stringify(v));

export class DocsearchClient {
  private readonly http: Transport;

  /** @param opts service URL, credentials, retry policy (see TransportOptions) */
  constructor(readonly options: DocsearchClientOptions) {
    this.http = new Transport(options);
  }

  /** Service origin the client talks to, e.g. `http://127.0.0.1:8080`. */
  get origin(): string { return this.http.origin; }

  /** A client for another project (account keys and login tokens) with the same URL, key and policy. */
  withProject(projectId: string): DocsearchClient {
    return new DocsearchClient({ ...this.options, projectId });
  }

  // ---- account: login and projects ------------------------------------------------------------
  /** POST /v3/auth/login → a session token (use as apiKey together with a projectId). */
  login(email: string, password: string, o: Opts = {}): Promise<LoginResponse> {
    return this.http.json('POST', '/v3/auth/login', { body: { email, password }, signal: o.signal });
  }
  /** POST /v3/projects (account key): the project and its API key, shown only in this answer. */
  createProject(body: CreateProjectRequest, o: Opts = {}): Promise<CreatedProject> {
    return this.http.json('POST', '/v3/projects', { body, signal: o.signal });
  }
  listProjects(o: Opts = {}): Promise<ProjectList> {
    return this.http.json('GET', '/v3/projects', { signal: o.signal, retryNetworkErrors: true });
  }
  async deleteProject(projectId: string, o: Opts = {}): Promise<void> {
    await this.http.send('DELETE', `/v3/projects/${seg(projectId)}`, { signal: o.signal, retryNetworkErrors: true });
  }

  // ---- ingestion --------------------------------------------------------------------------------
  /**
   * POST /v3/docsearch/ingest: upload `data` (with `filename`) or, with no data, fetch `remoteUrl`.
   * A random Idempotency-Key makes the SDK's retries safe (the service returns the same job).
   * @throws DocsearchError e.g. 400 invalid_request, 413 payload_too_large
   */
  ingest(data: FileBody | undefined, opts: IngestOptions = {}): Promise<PublicJob> {
    if (data === undefined && !opts.remoteUrl) throw new TypeError('ingest: give the file data or opts.remoteUrl');
    if (data !== undefined && !opts.filename) throw new TypeError('ingest: opts.filename is required with file data');
    const filename = opts.filename?.replace(/["\\\r\n]/g, '_');
    return this.http.json('POST', '/v3/docsearch/ingest', {
      body: data,
      signal: opts.signal,
      retryNetworkErrors: true,
      headers: {
        'content-type': data === undefined ? undefined : 'application/octet-stream',
        'content-disposition': filename ? `attachment; filename="${filename}"` : undefined,
        'x-remote-url': opts.remoteUrl,
        'x-attributes': jsonHeader(opts.attributes),
        'x-attribute-schema': jsonHeader(opts.attributeSchema),
        'x-unencrypted-strings': jsonHeader(opts.unencryptedStrings),
        'x-base-url': opts.baseUrl,
        'x-completion': opts.completion,
        'idempotency-key': opts.idempotencyKey ?? crypto.randomUUID(),
      },
    });
  }
  /** ingest() a file from disk (Node): streamed from the file, named after it unless opts.filename. */
  async ingestFile(path: string, opts: IngestOptions = {}): Promise<PublicJob> {
    const fs = await import('node:fs');
    const { basename } = await import('node:path');
    const blob = await fs.openAsBlob(path);
    return this.ingest(blob, { ...opts, filename: opts.filename ?? basename(path) });
  }

  // ---- jobs -----------------------------------------------------------------------------------
  getJobStatus(jobId: string, o: Opts = {}): Promise<JobStatus> {
    return this.http.json('GET', `/v3/jobs/${seg(jobId)}/status`, { signal: o.signal, retryNetworkErrors: true });
  }
  /** DELETE /v3/jobs/{id}: cancels an unfinished job, or deletes a finished job's record. */
  deleteJob(jobId: string, o: Opts = {}): Promise<DeleteJobResponse> {
    return this.http.json('DELETE', `/v3/jobs/${seg(jobId)}`, { signal: o.signal });
  }
  /** The job's status events until it is terminal (`for await (const ev of client.watchJob(id))`). */
  watchJob(jobId: string, opts: WatchJobOptions = {}): AsyncGenerator<JobStatusEvent, void, undefined> {
    return watchJob(this.http, jobId, { retry: this.options.retry, ...opts });
  }
  /**
   * Follow the job until it is done or failed and return its terminal event (a failed job is returned,
   * not thrown: read `status` and `error`).
   * @param opts.onEvent called with every event, the terminal one included
   */
  async waitForJob(jobId: string, opts: WatchJobOptions & { onEvent?: (ev: JobStatusEvent) => void } = {}): Promise<JobStatusEvent> {
    let last: JobStatusEvent | undefined;
    for await (const ev of this.watchJob(jobId, opts)) { last = ev; opts.onEvent?.(ev); }
    if (last?.is_terminal) return last;
    const status = await this.getJobStatus(jobId, opts); // the stream answered 204: already terminal
    return { job_id: status.job_id, status: status.status, code: status.code, is_terminal: status.is_terminal, error: status.error, doc_id: status.doc_id, progress: status.progress };
  }

  // ---- search ---------------------------------------------------------------------------------
  /** POST /v3/docsearch/search. `format: 'json'` gives ranked hits; otherwise the prompt-ready context. */
  search(body: SearchRequest & { format: 'json' }, o?: Opts): Promise<SearchResponse>;
  search(body: SearchRequest & { format?: 'prompt_ready' }, o?: Opts): Promise<RetrievalContext>;
  search(body: SearchRequest, o?: Opts): Promise<SearchResult>;
  search(body: SearchRequest, o: Opts = {}): Promise<SearchResult> {
    return this.http.json('POST', '/v3/docsearch/search', { body, signal: o.signal, retryNetworkErrors: true });
  }
  /** POST /v3/docsearch/searchInDoc: search within the document `doc_filter`. */
  searchInDoc(body: SearchInDocRequest & { format: 'json' }, o?: Opts): Promise<SearchResponse>;
  searchInDoc(body: SearchInDocRequest & { format?: 'prompt_ready' }, o?: Opts): Promise<RetrievalContext>;
  searchInDoc(body: SearchInDocRequest, o?: Opts): Promise<SearchResult>;
  searchInDoc(body: SearchInDocRequest, o: Opts = {}): Promise<SearchResult> {
    return this.http.json('POST', '/v3/docsearch/searchInDoc', { body, signal: o.signal, retryNetworkErrors: true });
  }

  // ---- documents and attributes ---------------------------------------------------------------
  listDocuments(o: Opts = {}): Promise<ListDocsResponse> {
    return this.http.json('GET', '/v3/docsearch/docs', { signal: o.signal, retryNetworkErrors: true });
  }
  getDocument(docId: string, o: Opts = {}): Promise<DocInfo> {
    return this.http.json('GET', `/v3/docsearch/docs/${seg(docId)}`, { signal: o.signal, retryNetworkErrors: true });
  }
  deleteDocument(docId: string, o: Opts = {}): Promise<DeleteDocResponse> {
    return this.http.json('DELETE', `/v3/docsearch/docs/${seg(docId)}`, { signal: o.signal });
  }
  /** GET /v3/docsearch/attributes (a 503 is retried, never read as "no attributes"). */
  listAttributes(o: Opts = {}): Promise<AttributeList> {
    return this.http.json('GET', '/v3/docsearch/attributes', { signal: o.signal, retryNetworkErrors: true });
  }

  // ---- the index -----------------------------------------------------------------------------
  /** GET /v3/docsearch/index: generation, size, what built it against what runs, the reindex running. */
  describeIndex(o: Opts = {}): Promise<IndexDescription> {
    return this.http.json('GET', '/v3/docsearch/index', { signal: o.signal, retryNetworkErrors: true });
  }
  /**
   * POST /v3/docsearch/reindex: rebuild the namespace online into a new index generation; the answer is the
   * job (follow it with watchJob / waitForJob).
   * @throws DocsearchError 409 reindex_running (details.job_id names the running one)
   */
  reindex(o: Opts = {}): Promise<ReindexJob> {
    return this.http.json('POST', '/v3/docsearch/reindex', { signal: o.signal });
  }

  // ---- evaluations ----------------------------------------------------------------------------
  /**
   * POST /v3/docsearch/evaluations: start evaluating search on `body.cases` (and `body.variants`); the
   * answer is the pending evaluation (docs/evaluations.md).
   * @throws DocsearchError 400 validation_failed naming the field, 409 evaluation_running, 429 rate_limited
   */
  createEvaluation(body: CreateEvaluationRequest, o: Opts = {}): Promise<Evaluation> {
    return this.http.json('POST', '/v3/docsearch/evaluations', { body, signal: o.signal });
  }
  /** GET /v3/docsearch/evaluations/{id}: status, progress and, once done, the report. */
  getEvaluation(id: string, o: Opts = {}): Promise<Evaluation> {
    return this.http.json('GET', `/v3/docsearch/evaluations/${seg(id)}`, { signal: o.signal, retryNetworkErrors: true });
  }
  /** GET /v3/docsearch/evaluations: newest first, without reports. */
  listEvaluations(query: { limit?: number } = {}, o: Opts = {}): Promise<EvaluationList> {
    // `limit` travels as digits in the query string, 1..100.
    return this.http.json('GET', '/v3/docsearch/evaluations', { query, signal: o.signal, retryNetworkErrors: true });
  }
  /** DELETE /v3/docsearch/evaluations/{id}: deletes it and its report (cancels it first if it runs). */
  deleteEvaluation(id: string, o: Opts = {}): Promise<DeleteEvaluationResponse> {
    return this.http.json('DELETE', `/v3/docsearch/evaluations/${seg(id)}`, { signal: o.signal });
  }
  /**
   * Create an evaluation and poll it until it is no longer pending or running; returns it (a failed or
   * cancelled one is returned, not thrown: read `status` and `error`).
   * @param opts.onProgress called with each state read while it runs
   * @param opts.pollMs time between reads (default 500 ms)
   */
  async runEvaluation(body: CreateEvaluationRequest, opts: Opts & { onProgress?: (ev: Evaluation) => void; pollMs?: number } = {}): Promise<Evaluation> {
    let ev = await this.createEvaluation(body, opts);
    while (ev.status === 'pending' || ev.status === 'running') {
      opts.onProgress?.(ev);
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
      ev = await this.getEvaluation(ev.evaluation_id, opts);
    }
    return ev;
  }

  // ---- bucket ingestion -----------------------------------------------------------------------
  /** POST /v3/docsearch/ingestBucket (202 task; with dry_run a validation report). */
  createBucketIngest(body: CreateBucketIngestRequest, opts: Opts & { completion?: string } = {}): Promise<BucketIngestCreated> {
    return this.http.json('POST', '/v3/docsearch/ingestBucket', { body, signal: opts.signal, headers: { 'x-completion': opts.completion } });
  }
  getBucketIngest(taskId: string, o: Opts = {}): Promise<BucketIngestTask> {
    return this.http.json('GET', `/v3/docsearch/ingestBucket/${seg(taskId)}`, { signal: o.signal, retryNetworkErrors: true });
  }
  pauseBucketIngest(taskId: string, o: Opts = {}): Promise<BucketIngestTask> {
    return this.http.json('POST', `/v3/docsearch/ingestBucket/${seg(taskId)}/pause`, { signal: o.signal, retryNetworkErrors: true });
  }
  resumeBucketIngest(taskId: string, o: Opts = {}): Promise<BucketIngestTask> {
    return this.http.json('POST', `/v3/docsearch/ingestBucket/${seg(taskId)}/resume`, { signal: o.signal, retryNetworkErrors: true });
  }
  cancelBucketIngest(taskId: string, o: Opts = {}): Promise<BucketIngestTask> {
    return this.http.json('DELETE', `/v3/docsearch/ingestBucket/${seg(taskId)}`, { signal: o.signal, retryNetworkErrors: true });
  }
  listBucketIngestFailures(taskId: string, query: { cursor?: string; limit?: number } = {}, o: Opts = {}): Promise<BucketIngestFailures> {
    return this.http.json('GET', `/v3/docsearch/ingestBucket/${seg(taskId)}/failures`, { query, signal: o.signal, retryNetworkErrors: true });
  }
  retryBucketIngestFailed(taskId: string, o: Opts = {}): Promise<BucketIngestTask & { retried: number }> {
    return this.http.json('POST', `/v3/docsearch/ingestBucket/${seg(taskId)}/retryFailed`, { signal: o.signal });
  }
  updateBucketIngestCredentials(taskId: string, body: UpdateBucketCredentialsRequest, o: Opts = {}): Promise<BucketIngestTask> {
    return this.http.json('PATCH', `/v3/docsearch/ingestBucket/${seg(taskId)}/credentials`, { body, signal: o.signal });
  }
}

export { DocsearchError };
