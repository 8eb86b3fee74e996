// The service container: every long-lived dependency, built once at start-up by app.ts and passed to
// the HTTP layer and the workers. Nothing here is a module-level singleton.
import type { Logger } from 'pino';
import type { Config } from './internal/config.ts';
import type { ControlPlane } from './storage/db.ts';
import type { NamespaceIndex } from './storage/namespace-index.ts';
import type { BlobStore } from './storage/blob-store.ts';
import type { Embedder } from './models/embedder.ts';
import type { AuthService } from './projects/types.ts';
import type { ProjectService } from './projects/project-service.ts';
import type { IngestService } from './ingest/ingest-service.ts';
import type { DocumentService } from './documents/document-service.ts';
import type { SearchService } from './search/search-service.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { NetGuard } from './internal/net-guard.ts';

export interface Services {
  config: Config;
  logger: Logger;
  cp: ControlPlane;
  index: NamespaceIndex;
  blobs: BlobStore;
  embedder: Embedder;
  net: NetGuard;
  auth: AuthService;
  projects: ProjectService;
  ingest: IngestService;
  documents: DocumentService;
  search: SearchService;
  queue: JobQueue;
}
