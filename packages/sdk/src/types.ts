// Friendly names for the request and response types generated from the service's OpenAPI document
// (generated/openapi.ts). Nothing here is written by hand except the names: when the service's schemas
// change, regenerating updates every type below.
import type { operations } from './generated/openapi.ts';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** JSON body of response `status` of operation `Op`. */
export type ResponseOf<Op extends keyof operations, S extends keyof operations[Op]['responses']> = JsonOf<operations[Op]['responses'][S]>;
/** JSON request body of operation `Op`. */
export type RequestOf<Op extends keyof operations> = operations[Op] extends { requestBody: infer R } ? JsonOf<NonNullable<R>> : never;

export type SearchRequest = RequestOf<'search'>;
/** searchInDoc: the search body with `doc_filter` required. */
export type SearchInDocRequest = RequestOf<'searchInDoc'>;
export type SearchResult = ResponseOf<'search', 200>;
/** The prompt-ready answer (format `prompt_ready`, the default). */
export type RetrievalContext = Extract<SearchResult, { context: string }>;
/** Ranked hits (format `json`). */
export type SearchResponse = Extract<SearchResult, { results: unknown }>;
export type SearchHit = SearchResponse['results'][number];
export type AttributeFilter = NonNullable<SearchRequest['attribute_filters']>[number];

export type PublicJob = ResponseOf<'ingestDocument', 201>;
export type JobStatus = ResponseOf<'getJobStatus', 200>;
export type DeleteJobResponse = ResponseOf<'deleteJob', 200>;
/** One `job_status` event of the status stream (docs/jobs.md). */
export type JobStatusEvent = Pick<JobStatus, 'job_id' | 'status' | 'code' | 'is_terminal' | 'error' | 'doc_id' | 'progress'>;
/** How far an ingest has come (extension; docs/jobs.md): stage, pages parsed, chunks embedded. */
export type JobProgress = NonNullable<JobStatus['progress']>;

/** GET /v3/docsearch/index: the namespace's index, what built it and whether it needs a reindex (docs/reindex.md). */
export type IndexDescription = ResponseOf<'describeIndex', 200>;
/** POST /v3/docsearch/reindex answers the reindex job's status. */
export type ReindexJob = ResponseOf<'reindex', 202>;

export type DocInfo = ResponseOf<'getDocument', 200>;
export type ListDocsResponse = ResponseOf<'listDocuments', 200>;
export type DeleteDocResponse = ResponseOf<'deleteDocument', 200>;
export type AttributeList = ResponseOf<'listAttributes', 200>;

export type CreateProjectRequest = RequestOf<'createProject'>;
export type CreatedProject = ResponseOf<'createProject', 201>;
export type ProjectList = ResponseOf<'listProjects', 200>;
export type LoginResponse = ResponseOf<'login', 200>;

export type CreateBucketIngestRequest = RequestOf<'createBucketIngest'>;
export type BucketIngestTask = ResponseOf<'getBucketIngest', 200>;
export type BucketIngestCreated = ResponseOf<'createBucketIngest', 202>;
export type BucketIngestFailures = ResponseOf<'listBucketIngestFailures', 200>;
export type UpdateBucketCredentialsRequest = RequestOf<'updateBucketIngestCredentials'>;

export type CreateEvaluationRequest = RequestOf<'createEvaluation'>;
/** One case of an evaluation: a question and what counts as found (docs/evaluations.md). */
export type EvaluationCase = CreateEvaluationRequest['cases'][number];
export type EvaluationVariant = NonNullable<CreateEvaluationRequest['variants']>[number];
/** An evaluation; `report` once its status is done. */
export type Evaluation = ResponseOf<'getEvaluation', 200>;
export type EvaluationReport = NonNullable<Evaluation['report']>;
export type VariantReport = EvaluationReport['variants'][number];
export type EvaluationList = ResponseOf<'listEvaluations', 200>;
export type DeleteEvaluationResponse = ResponseOf<'deleteEvaluation', 200>;

/** Everything POST /docsearch/ingest accepts besides the file (headers in the interface spec). */
export interface IngestOptions {
  /** Name with extension (selects the parser). Required with `data`; optional with `remoteUrl`. */
  filename?: string;
  /** Fetch the file from this public URL instead of uploading (X-Remote-URL). */
  remoteUrl?: string;
  /** Typed attributes (X-Attributes), e.g. `{ year: 2024, labels: ['a'] }`. */
  attributes?: Record<string, unknown>;
  /** Declared types (X-Attribute-Schema), needed for datetime and encrypted_text. */
  attributeSchema?: Record<string, { type: string }>;
  /** Plain key → value strings (X-Unencrypted-Strings), filterable with unencrypted_strings_match. */
  unencryptedStrings?: Record<string, string>;
  /** Base for relative image links (X-Base-URL). */
  baseUrl?: string;
  /** Completion notification target (X-Completion), e.g. a webhook URL. */
  completion?: string;
  /** Idempotency-Key; the SDK generates one per call so its own retries never ingest twice. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}
