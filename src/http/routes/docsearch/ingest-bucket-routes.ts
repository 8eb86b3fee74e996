// The /docsearch/ingestBucket endpoints, one file each; registered together from index.ts.
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
  // pause, resume, retryFailed and cancel take no body, and many HTTP clients still send
  // `Content-Type: application/json` with an empty one: that is accepted there instead of
  // Fastify's 400 for an empty JSON body. A non-empty body goes through the default JSON parser.
  await app.register(async (scope) => {
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (String(body).trim() === '') return done(null, undefined);
      return parseJson(request, String(body), done);
    });
    await registerIngestBucketPauseRoute(scope, services);
    await registerIngestBucketResumeRoute(scope, services);
    await registerIngestBucketRetryFailedRoute(scope, services);
    await registerIngestBucketCancelRoute(scope, services);
  });
  await registerIngestBucketFailuresRoute(app, services);
  await registerIngestBucketCredentialsRoute(app, services);
}
