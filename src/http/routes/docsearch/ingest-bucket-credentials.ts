// PATCH /docsearch/ingestBucket/{id}/credentials — replace the task's source credentials (body
// {"credentials": {...}}, same shape as at creation). They are tried with one listing call first; a task
// paused with paused_credential_error resumes. The credentials are stored encrypted and never returned.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { CredentialsBody, TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketCredentialsRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.patch<{ Params: Static<typeof TaskIdParams>; Body: Static<typeof CredentialsBody> }>('/docsearch/ingestBucket/:id/credentials', {
    schema: {
      tags: ['buckets'], operationId: 'updateBucketIngestCredentials',
      summary: 'Replace the source credentials of a bucket ingest task', params: TaskIdParams, body: CredentialsBody, response: { 200: { $ref: 'BucketIngestTask#' }, 400: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema },
    },
  }, async (request) => services.buckets.replaceCredentials(request.project, request.params.id, request.body.credentials));
}
