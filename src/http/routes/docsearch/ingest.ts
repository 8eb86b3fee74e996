// POST /docsearch/ingest — raw octet-stream upload or X-Remote-URL fetch; creates a job (201 PublicJob).
// The body is handed to the domain as a stream (any content type is accepted here so that multipart and
// wrong types get the spec's own errors rather than Fastify's 415).
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import type { Services } from '../../../services.ts';
import { PublicJobSchema } from '../../schemas/documents.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';

const h = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export async function registerIngestRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.addSchema(PublicJobSchema);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.post('/docsearch/ingest', {
      bodyLimit: services.config.maxUploadBytes,
      schema: {
        tags: ['ingest'], operationId: 'ingestDocument', summary: 'Create an ingestion job for one file',
        description: 'Body: the file as application/octet-stream with Content-Disposition: attachment; filename="x.ext"; or no body and X-Remote-URL.',
        response: { 201: { $ref: 'PublicJob#' }, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 413: ErrorBodySchema, 429: ErrorBodySchema },
      },
    }, async (request, reply) => {
      const hdr = request.headers;
      const job = await services.ingest.createJob(request.project, {
        contentType: h(hdr['content-type']),
        contentDisposition: h(hdr['content-disposition']),
        contentLength: h(hdr['content-length']),
        remoteUrl: h(hdr['x-remote-url']),
        baseUrl: h(hdr['x-base-url']),
        completion: h(hdr['x-completion']),
        idempotencyKey: h(hdr['idempotency-key']),
        unencryptedStrings: h(hdr['x-unencrypted-strings']),
        attributes: h(hdr['x-attributes']),
        attributeSchema: h(hdr['x-attribute-schema']),
        labels: h(hdr['x-labels']),
        metaInt1: h(hdr['x-meta-int-1']),
        metaInt2: h(hdr['x-meta-int-2']),
      }, (request.body as Readable | undefined) ?? null);
      return reply.status(201).send(job);
    });
  });
}
