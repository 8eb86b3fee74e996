// The /docsearch/ingestBucket endpoints (issue 6), one file each; registered together from index.ts.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { registerIngestBucketCreateRoute } from './ingest-bucket-create.ts';
import { registerIngestBucketGetRoute } from './ingest-bucket-get.ts';
import { registerIngestBucketPauseRoute } from './ingest-bucket-pause.ts';
import { registerIngestBucketResumeRoute } from './ingest-bucket-resume.ts';
import { registerIngestBucketCancelRoute } from './ingest-bucket-cancel.ts';
import { registerIngestBucketFailuresRoute } from './ingest-bucket-failures.ts';
import { registerIngestBucketRetryFailedRoute } from './ingest-bucket-retry-failed.ts';
import { registerIngestBucketCredentialsRoute } from './ingest-bucket-credentials.ts';

export async function registerIngestBucketRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await registerIngestBucketCreateRoute(app, services);
  await registerIngestBucketGetRoute(app, services);
  await registerIngestBucketPauseRoute(app, services);
  await registerIngestBucketResumeRoute(app, services);
  await registerIngestBucketCancelRoute(app, services);
  await registerIngestBucketFailuresRoute(app, services);
  await registerIngestBucketRetryFailedRoute(app, services);
  await registerIngestBucketCredentialsRoute(app, services);
}
