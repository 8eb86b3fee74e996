// POST /docsearch/ingestBucket — create a bulk-ingest task for a bucket or prefix (202 with the task),
// or with dry_run validate and report without creating anything (200). X-Completion names webhook URLs
// and e-mail addresses notified once the task ends. A second active task in the account -> 409.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { CreateTaskBody, DryRunReportSchema, TaskViewSchema } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketCreateRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.addSchema(TaskViewSchema);
  app.post<{ Body: Static<typeof CreateTaskBody> }>('/docsearch/ingestBucket', {
    schema: {
      tags: ['buckets'], operationId: 'createBucketIngest', summary: 'Create a bulk-ingest task for a bucket or prefix',
      description: 'Body: source {type s3|gcs, bucket, prefix?, region?, endpoint?, credentials}, filter_glob?, dry_run?, acknowledge_egress_cost?, and the sync extension {delete_missing?, interval_seconds?} (docs/sync.md). Header X-Completion: pipe-separated webhook URLs / e-mail addresses (≤ 1024 bytes).',
      body: CreateTaskBody,
      response: { 202: { $ref: 'BucketIngestTask#' }, 200: DryRunReportSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema },
    },
  }, async (request, reply) => {
    const hdr = request.headers['x-completion'];
    const r = await services.buckets.create(request.project, request.body, Array.isArray(hdr) ? hdr.join('|') : hdr);
    if ('dryRun' in r) return reply.status(200).send(r.dryRun);
    return reply.status(202).header('location', r.task.poll_url).send(r.task);
  });
}
