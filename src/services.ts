// The service container: every long-lived dependency, built once at start-up by app.ts and passed to
// the HTTP layer and the workers. Nothing here is a module-level singleton.
import type { Logger } from 'pino';
import type { Config } from './internal/config.ts';
import type { ControlPlane } from './storage/db.ts';
import type { NamespaceIndex } from './storage/namespace-index.ts';
import type { BlobStore } from './storage/blob-store.ts';
import type { Embedder } from './models/embedder.ts';
import type { ConfiguredReranker } from './models/create-reranker.ts';
import type { AuthService } from './projects/types.ts';
import type { ProjectService } from './projects/project-service.ts';
import type { IngestService } from './ingest/ingest-service.ts';
import type { DocumentService } from './documents/document-service.ts';
import type { SearchService } from './search/search-service.ts';
import type { AttributeService } from './attributes/attribute-service.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { NetGuard } from './internal/net-guard.ts';
import type { JobService } from './jobs/job-service.ts';
import type { WebhookSecrets } from './notifications/webhook-secrets.ts';
import type { BucketService } from './buckets/bucket-service.ts';
import type { Metrics } from './internal/metrics.ts';
import type { RateCounters } from './storage/rate-counters.ts';
import type { EvaluationService } from './evaluations/evaluation-service.ts';
import type { StartupRecovery } from './documents/startup-recovery.ts';
import type { IndexBuilds } from './reindex/index-builds.ts';
import type { ReindexService } from './reindex/reindex-service.ts';

export interface Services {
  config: Config;
  logger: Logger;
  cp: ControlPlane;
  index: NamespaceIndex;
  blobs: BlobStore;
  embedder: Embedder;
  /** Reranker of the advanced tier (docs/models.md); null when DOCSEARCH_RERANKER=none. */
  reranker: ConfiguredReranker | null;
  net: NetGuard;
  auth: AuthService;
  projects: ProjectService;
  ingest: IngestService;
  documents: DocumentService;
  search: SearchService;
  queue: JobQueue;
  /** Typed-attribute registry, ingest resolution and search prefilters. */
  attributes: AttributeService;
  /** Job endpoints: status, cancel/delete, status stream. */
  jobs: JobService;
  /** Per-project completion-webhook signing secrets. */
  webhookSecrets: WebhookSecrets;
  /** Evaluations of the project's search on its own labelled questions. */
  evaluations: EvaluationService;
  /** Bulk bucket ingestion tasks. */
  buckets: BucketService;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: Metrics;
  /** What built each namespace's index against what this process runs (GET /docsearch/index, /readyz). */
  indexBuilds: IndexBuilds;
  /** Online reindex of a namespace into a new index generation (POST /docsearch/reindex). */
  reindex: ReindexService;
  /** Start-up reconcile of every namespace, running behind readiness; its progress is shown by /readyz. */
  recovery?: StartupRecovery;
  /** Request-rate counters in the control plane, shared by API processes (docs/admission.md). */
  rateCounters?: RateCounters;
}
