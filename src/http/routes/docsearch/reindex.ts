// POST /docsearch/reindex — rebuild the namespace from its stored originals into a new index generation while
// searches keep answering from the serving one, then switch at once (docs/reindex.md). Asynchronous: the
// answer is the job, followed and cancelled with the job endpoints. One reindex per namespace at a time.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema, ProjectHeaders } from '../../schemas/common.ts';
import { JobStatusViewSchema } from '../jobs/schemas.ts';

export async function registerReindexRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.post('/docsearch/reindex', {
    schema: {
      tags: ['index'], operationId: 'reindex', summary: 'Rebuild the namespace\'s index online',
      description: 'Rebuilds every document from its stored original with the running embedder, analyser and table format into a new index generation; searches answer from the serving one until the switch, which is at once. Documents ingested or deleted meanwhile are right afterwards. Answers the job (202); GET /jobs/{job_id}/status follows it (progress stage rebuilding, then switching), DELETE /jobs/{job_id} cancels it. 409 reindex_running while another reindex of the namespace is pending or running.',
      headers: ProjectHeaders,
      response: { 202: JobStatusViewSchema, 409: ErrorBodySchema, 503: ErrorBodySchema },
    },
  }, async (request, reply) => reply.status(202).send(await services.reindex.start(request.project)));
}
