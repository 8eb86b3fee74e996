// Composition root: builds every service from a validated Config, wires the HTTP server and the
// workers, and owns start-up (migrations, bootstrap, reconcile) and shutdown ordering.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './internal/config.ts';
import { openControlPlane } from './storage/db.ts';
import { LocalBlobStore } from './storage/blob-store.ts';
import { openLanceIndex } from './storage/lance-index.ts';
import { NetGuard } from './internal/net-guard.ts';
import { createEmbedder } from './models/create-embedder.ts';
import { createProjectDomain } from './projects/index.ts';
import { IngestService } from './ingest/ingest-service.ts';
import { DocumentService } from './documents/document-service.ts';
import { IndexMaintainer } from './documents/index-maintainer.ts';
import { SearchService } from './search/search-service.ts';
import { JobQueue } from './jobs/queue.ts';
import { Worker } from './jobs/worker.ts';
import { ingestJobKind } from './jobs/ingest-job.ts';
import { buildHttpServer } from './http/server.ts';
import { initAnalysis } from './analysis/analyzer.ts';
import type { Services } from './services.ts';

export interface AppHandle {
  services: Services;
  http: FastifyInstance;
  worker: Worker;
  maintainer: IndexMaintainer;
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
  await initAnalysis();
  const cp = await openControlPlane({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
  const index = await openLanceIndex({ uri: path.join(cfg.dataDir, 'lance') });
  const blobs = new LocalBlobStore(path.join(cfg.dataDir, 'blobs'));
  const net = new NetGuard(cfg.allowedPrivateHosts);
  const embedder = await createEmbedder(cfg, net);
  const queue = new JobQueue(cp);
  const documents = new DocumentService({ cp, index, blobs, logger });
  const maintainer = new IndexMaintainer({ cp, index, logger, debounceMs: 2000 });
  const { auth, projects } = createProjectDomain({
    db: cp.db, config: cfg, logger,
    purgeNamespace: async (namespace: string, projectId: string) => {
      await index.dropNamespace(namespace);
      await blobs.deletePrefix(`projects/${projectId}`);
      await cp.db.deleteFrom('documents').where('project_id', '=', projectId).execute();
    },
  });
  const ingest = new IngestService({ blobs, queue, net, maxUploadBytes: cfg.maxUploadBytes });
  const search = new SearchService({ cp, index, embedder, logger });
  const services: Services = { config: cfg, logger, cp, index, blobs, embedder, net, auth, projects, ingest, documents, search, queue };

  await projects.bootstrap();
  const removed = await documents.reconcileAll();
  if (removed) logger.info({ removed }, 'reconcile removed orphan chunks');

  const worker = new Worker(queue, [ingestJobKind({
    cp, blobs, index, embedder, net, maxRemoteBytes: cfg.maxRemoteBytes, logger,
    onDocumentCommitted: (ns) => maintainer.touch(ns),
  })], { leaseMs: cfg.jobLeaseMs, pollMs: cfg.workerPollMs, concurrency: cfg.workerConcurrency, logger });

  const http = await buildHttpServer(services, { logger: opts.logger === false ? false : { level: cfg.logLevel } });
  let closed = false;
  return {
    services, http, worker, maintainer,
    startWorkers: () => worker.start(),
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      await worker.stop();
      await maintainer.close();
      await index.close();
      await net.close();
      await cp.close();
    },
  };
}
