// Composition root: builds every service from a validated Config, wires the HTTP server and the
// workers, and owns start-up (migrations, bootstrap; the reconcile runs behind readiness) and shutdown ordering.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_ADMISSION, type Config } from './internal/config.ts';
import { openControlPlane } from './storage/db.ts';
import { checkStorage, indexLocationOptions, openBlobStore, openIndex } from './storage/open-storage.ts';
import { LeaseStore } from './storage/lease-store.ts';
import { WriterLeases } from './storage/writer-lease.ts';
import { leaseOwnerId, releasableOwners } from './jobs/queue-support.ts';
import { NetGuard } from './internal/net-guard.ts';
import { createEmbedder } from './models/create-embedder.ts';
import { createReranker } from './models/create-reranker.ts';
import { checkRelevanceModelEmbedder } from './search/relevance-model-file.ts';
import { createProjectDomain } from './projects/index.ts';
import { IngestService } from './ingest/ingest-service.ts';
import { DocumentService } from './documents/document-service.ts';
import { IndexMaintainer } from './documents/index-maintainer.ts';
import { StartupRecovery } from './documents/startup-recovery.ts';
import { SearchService } from './search/search-service.ts';
import { AttributeService } from './attributes/attribute-service.ts';
import { JobQueue } from './jobs/queue.ts';
import { Worker } from './jobs/worker.ts';
import { ingestJobKind } from './jobs/ingest-job.ts';
import { ParseRunner } from './ingest/isolation/parse-runner.ts';
import { CommitGroups } from './ingest/commit-groups.ts';
import { GROUP_STAGES, type IngestStage } from './ingest/stage-times.ts';
import { RateCounters } from './storage/rate-counters.ts';
import { checkOcrSetup } from './ingest/parse/ocr-languages.ts';
import { JobService } from './jobs/job-service.ts';
import { cleanupJobKind, cleanupTerminalHook } from './jobs/cleanup-job.ts';
import { completionTerminalHook, webhookDeliveryJobKind } from './notifications/completion-webhooks.ts';
import { WebhookSecrets } from './notifications/webhook-secrets.ts';
import { createBucketDomain } from './buckets/index.ts';
import { buildHttpServer } from './http/server.ts';
import { initAnalysis } from './analysis/analyzer.ts';
import { initEnglishForms } from './analysis/english-forms.ts';
import { Metrics } from './internal/metrics.ts';
import { startEventLoopMonitor } from './internal/event-loop.ts';
import type { Services } from './services.ts';
import { startupPhases } from './internal/startup-phases.ts';
import { deleteAbbreviations } from './storage/abbreviation-store.ts';
import { EvaluationService } from './evaluations/evaluation-service.ts';
import { evaluationJobKind, evaluationTerminalHook } from './evaluations/evaluation-job.ts';
import { IndexBuilds } from './reindex/index-builds.ts';
import { ReindexService } from './reindex/reindex-service.ts';
import { reindexJobKind, reindexTerminalHook } from './reindex/reindex-job.ts';
import { GenerationStore } from './storage/generation-store.ts';
import { runningBuild } from './storage/index-build.ts';

export interface AppHandle {
  services: Services;
  http: FastifyInstance;
  worker: Worker;
  /** Internal jobs (completion webhooks, cleanup of failed/cancelled jobs), separate from the ingest slots. */
  internalWorker: Worker;
  maintainer: IndexMaintainer;
  /**
   * Start reconciling every namespace in the background (documents/startup-recovery.ts); call once the
   * process listens. Every role runs it. Progress: services.recovery.status(), shown by /readyz.
   */
  startRecovery(): void;
  /** Start the background worker loops (role worker/all). */
  startWorkers(): void;
  /** Graceful shutdown: stop accepting requests, let in-flight ones finish, release running jobs. */
  close(): Promise<void>;
}

/** The server secret: configured, or generated once and kept in the data directory (0600). */
function resolveSecret(config: Config): string {
  if (config.serverSecret) return config.serverSecret;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, 'server-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const secret = crypto.randomBytes(32).toString('base64url');
  fs.writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/**
 * Build the whole application from configuration.
 * @param opts.logger false silences logs (tests); default pino at config.logLevel
 */
export async function createApp(config: Config, opts: { logger?: boolean } = {}): Promise<AppHandle> {
  const cfg: Config = { ...config, serverSecret: resolveSecret(config) };
  const logger = opts.logger === false ? pino({ level: 'silent' }) : pino({ level: cfg.logLevel });
  const phases = startupPhases(logger);
  await phases.time('analysis', () => Promise.all([initAnalysis(), initEnglishForms()])); // query analysis needs both, before the first search
  startEventLoopMonitor(); // lag reported by /readyz
  const cp = await phases.time('control_plane', () => openControlPlane({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir, onIdleError: (err) => logger.warn({ err }, 'idle control-plane connection failed') }));
  // Any number of nodes may share the index; one writer per namespace at a time (docs/scale-out.md).
  const leaseStore = new LeaseStore(cp);
  const leases = new WriterLeases(leaseStore, {
    owner: leaseOwnerId(), ttlMs: cfg.scaleOut?.writerLeaseMs,
    isDead: cfg.scaleOut?.localTakeover === false ? undefined : (owner) => releasableOwners([owner]).length > 0,
    onError: (namespace, err) => logger.warn({ err, namespace }, 'index writer lease'),
  });
  const index = await phases.time('index_open', () => openIndex(cfg, { coordination: { leases, versions: leaseStore, syncMs: cfg.scaleOut?.indexSyncMs }, memory: cfg.indexMemory, lexicalScanRows: cfg.lexicalScanRows })).catch(async (err) => { await cp.close(); throw err; });
  const blobs = openBlobStore(cfg);
  await phases.time('storage_check', () => checkStorage(blobs, index, cfg)).catch(async (err) => { await Promise.allSettled([index.close(), blobs.close(), cp.close()]); throw err; });
  logger.info({ blobs: blobs.describe(), index: indexLocationOptions(cfg).uri }, 'storage ready');
  const net = new NetGuard(cfg.allowedPrivateHosts);
  const embedder = await phases.time('embedder', () => createEmbedder(cfg, net));
  const reranker = await phases.time('reranker', () => createReranker(cfg, net));
  logger.info({ embedder: embedder.signature, reranker: reranker ? { ...reranker.reranker.info, depth: reranker.depth } : null }, 'models ready');
  if (cfg.relevanceModel) {
    // A model fitted with another embedder is refused before anything starts (its dense features mean something else).
    try {
      checkRelevanceModelEmbedder(cfg.relevanceModel, embedder.signature);
    } catch (err) {
      leases.close();
      await Promise.allSettled([index.close(), blobs.close(), reranker?.reranker.close?.(), net.close(), cp.close()]);
      throw err;
    }
    logger.info({ source: cfg.relevanceModel.model.source }, 'relevance model from DOCSEARCH_RELEVANCE_MODEL');
  }
  const queue = new JobQueue(cp);
  const metrics = new Metrics(cp);
  metrics.watchIndexCache(() => index.readCacheStats());
  queue.onTerminal(async (_trx, job) => metrics.observeJob(job));
  const attributes = new AttributeService({ cp, serverSecret: cfg.serverSecret, logger });
  const jobs = new JobService({ queue, db: cp.db, logger });
  const evaluations = new EvaluationService({ cp, queue, jobs });
  const webhookSecrets = new WebhookSecrets(cp);
  const documents = new DocumentService({ cp, index, blobs, logger });
  // Reconciling the index after a crash runs behind readiness (startRecovery), never before it.
  const recovery = new StartupRecovery({ cp, documents, logger });
  // The background optimize waits for 30 s without a commit to the namespace: it compacts, rewriting the
  // whole table under 1M rows (7.5 s at 100k rows on a loaded machine), so after every 2 s pause of a
  // running ingest it cost as much as the ingest's commits (docs/decisions/2026-11-29-ingest-throughput.md).
  const maintainer = new IndexMaintainer({ cp, index, logger, debounceMs: 30_000 });
  const { auth, projects } = createProjectDomain({
    db: cp.db, config: cfg, logger,
    purgeNamespace: async (namespace: string, projectId: string) => {
      await buckets.service.cancelForProject(projectId); // its bucket tasks end first
      await index.dropNamespace(namespace);
      await blobs.deletePrefix(`projects/${projectId}`);
      await deleteAbbreviations(cp.db, projectId);
      await cp.db.deleteFrom('documents').where('project_id', '=', projectId).execute();
      await attributes.purge(projectId);
      await evaluations.purge(projectId);
    },
  });
  const ingest = new IngestService({
    blobs, queue, net, maxUploadBytes: cfg.maxUploadBytes, attributes,
    maxInflight: (cfg.admission ?? DEFAULT_ADMISSION).inflightIngestsPerProject,
  });
  const relevance = cfg.relevanceModel ? { model: cfg.relevanceModel.model, fallback: cfg.relevanceModel.fallback } : undefined;
  const search = new SearchService({ cp, index, embedder, logger, attributes, blobs, reranker, relevance, onStage: (stage, s) => metrics.observeSearchStage(stage, s) });
  const buckets = createBucketDomain({ cp, queue, blobs, net, config: cfg, logger, documents });
  const indexBuilds = new IndexBuilds({ cp, index, running: runningBuild(embedder.signature) });
  const generations = new GenerationStore(cp);
  const reindex = new ReindexService({ queue, builds: indexBuilds, generations });
  const services: Services = { config: cfg, logger, cp, index, blobs, embedder, reranker, net, auth, projects, ingest, documents, search, queue, jobs, webhookSecrets, attributes, buckets: buckets.service, metrics, evaluations, recovery,
    indexBuilds, reindex, rateCounters: new RateCounters(cp) };

  await phases.time('bootstrap', () => projects.bootstrap());

  // Documents are parsed in child processes bounded in time and memory (one per worker slot).
  const fairSlots = cfg.workerFairSlots ?? 0;
  const parser = new ParseRunner({
    size: cfg.workerConcurrency + fairSlots, timeoutMs: cfg.parse?.timeoutMs, maxMemoryMb: cfg.parse?.maxMemoryMb,
    limits: cfg.parse ? { maxPages: cfg.parse.maxPages, maxOcrPages: cfg.parse.maxOcrPages, ocr: cfg.parse.ocr } : undefined,
  });
  // Missing Tesseract data is one warning at start-up, not a surprise per scanned document.
  if (cfg.role !== 'api') {
    const ocrWarning = await phases.time('ocr_check', () => checkOcrSetup({ ocr: cfg.parse?.ocr ?? true, fixedLangs: cfg.parse?.ocrLangs }));
    if (ocrWarning) logger.warn(ocrWarning);
  }
  const ingestKind = ingestJobKind({
    cp, blobs, index, embedder, net, maxRemoteBytes: cfg.maxRemoteBytes, logger, parser,
    commits: new CommitGroups(index, undefined, (g) => {
      metrics.observeIngestStage('write', g.write / 1000);
      metrics.observeIngestStage('index_refresh', g.indexRefresh / 1000);
    }),
    onDocumentCommitted: (ns) => maintainer.touch(ns),
    onStageTimes: (times) => {
      for (const [stage, ms] of Object.entries(times)) if (!GROUP_STAGES.has(stage as IngestStage)) metrics.observeIngestStage(stage, ms / 1000);
    },
  });
  const worker = new Worker(queue, [ingestKind], { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: cfg.workerConcurrency, fairSlots, logger });
  // Completion webhooks and durable cleanup run as internal job kinds in their own worker.
  const webhookOpts = { retryBaseMs: cfg.webhookRetryBaseMs, maxAttempts: cfg.webhookMaxAttempts, timeoutMs: cfg.webhookTimeoutMs };
  const webhookKind = webhookDeliveryJobKind({ cp, net, secrets: webhookSecrets, logger, opts: webhookOpts });
  queue.onTerminal(completionTerminalHook(queue, webhookOpts));
  // A reindex rebuilds a namespace in the background, one at a time per process (docs/reindex.md).
  const reindexKind = reindexJobKind({ cp, index, blobs, embedder, logger, parser, retireAfterMs: cfg.reindexRetireMs });
  queue.onTerminal(reindexTerminalHook(generations));
  queue.onTerminal(cleanupTerminalHook(queue, [ingestKind, webhookKind, reindexKind]));
  const internalWorker = new Worker(queue, [webhookKind, cleanupJobKind([ingestKind, webhookKind, reindexKind])],
    { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: 2, logger });
  // Evaluations run the search in this process, one per project at a time, two projects at once.
  const evaluationKind = evaluationJobKind({ cp, logger, search: (ctx, req, o) => search.search(ctx, req, o) });
  queue.onTerminal(evaluationTerminalHook());
  const evaluationWorker = new Worker(queue, [evaluationKind], { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: 1, fairSlots: 1, logger });
  const reindexWorker = new Worker(queue, [reindexKind], { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: 1, logger });
  jobs.attach([worker, evaluationWorker, reindexWorker], [ingestKind, webhookKind, evaluationKind, reindexKind]);
  // Bucket task drivers (long-running) and their completion e-mails, in workers of their own.
  const bucketWorker = new Worker(queue, [buckets.driverKind], { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: buckets.concurrentTasks, logger });
  const bucketMailWorker = new Worker(queue, [buckets.emailKind], { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: 1, logger });

  const http = await phases.time('http_routes', () => buildHttpServer(services, { logger: opts.logger === false ? false : { level: cfg.logLevel } }));
  let closed = false;
  return {
    services, http, worker, internalWorker, maintainer,
    startRecovery: () => { void recovery.start(); },
    startWorkers: () => { worker.start(); internalWorker.start(); evaluationWorker.start(); reindexWorker.start(); bucketWorker.start(); bucketMailWorker.start(); buckets.startSupervisor(); },
    async close() {
      if (closed) return;
      closed = true;
      leases.close(); // writes still waiting for another node's lease give up (their jobs are released)
      await recovery.close();
      await http.close();
      await worker.stop();
      await internalWorker.stop();
      await evaluationWorker.stop();
      await reindexWorker.stop();
      await buckets.close();
      await bucketWorker.stop();
      await bucketMailWorker.stop();
      await parser.close();
      await maintainer.close();
      await index.close();
      await blobs.close();
      await reranker?.reranker.close?.();
      await net.close();
      await cp.close();
    },
  };
}
