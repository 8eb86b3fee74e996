// POST /docsearch/ingest — raw octet-stream upload or X-Remote-URL fetch; creates a job (201 PublicJob).
// The body is handed to the domain as a stream (any content type is accepted here so that multipart and
// wrong types get the spec's own errors rather than Fastify's 415). Every header the route reads is
// declared once in IngestHeadersSchema: it types the handler and becomes the operation's header
// parameters; the domain (src/ingest/ingest-request.ts) checks the values.
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { refuseSerialisedBytes } from '../../../ingest/serialised-body.ts';
import { PublicJobSchema } from '../../schemas/documents.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';

const optional = (description: string) => Type.Optional(Type.String({ description }));

/** The request headers of ingest (spec: POST /docsearch/ingest, plus the Idempotency-Key and X-Source-ID extensions). */
export const IngestHeadersSchema = Type.Object({
  'Content-Disposition': optional('Raw upload: attachment; filename="<name>.<ext>" (RFC 6266; filename*=UTF-8\'\'… for non-ASCII names). The extension selects the parser. Optional with X-Remote-URL, where it overrides the name taken from the URL.'),
  'X-Remote-URL': optional('Public http(s) URL the service fetches instead of reading a body.'),
  'X-Base-URL': optional('Base URL for resolving relative image links in the file.'),
  'X-Completion': optional('Completion webhook: JSON {"url": "https://…", "headers": {…}} or a bare URL; one signed job.completed event (docs/webhooks.md).'),
  'Idempotency-Key': optional('1-255 visible ASCII characters (a UUID is a good choice): a retried request gets the job the first one created (docs/jobs.md).'),
  'X-Source-ID': optional('Extension: 1-1024 characters naming where the file comes from in your system (a path, a record id). Ingesting the same X-Source-ID again replaces that document under the same doc_id in one step; identical content is a no-op answered with the existing document (docs/sync.md).'),
  'X-Unencrypted-Strings': optional('JSON object of string to string (at most 32 keys [A-Za-z0-9_]{1,64}, values up to 1024, 16384 characters in all); filtered by unencrypted_strings_match.'),
  'X-Attributes': optional('JSON object of typed attribute name to value; at most 2048 characters (docs/attributes.md).'),
  'X-Attribute-Schema': optional('JSON object {"<name>": {"type": "<type>"}} declaring types for X-Attributes; required for datetime and encrypted_text; at most 2048 characters.'),
  'X-Labels': optional('Legacy: JSON array of strings or a comma-separated list, mapped to the attribute labels ([]encrypted_text).'),
  'X-Meta-Int-1': optional('Legacy: a decimal integer, mapped to the attribute meta_int_1 (int).'),
  'X-Meta-Int-2': optional('Legacy: a decimal integer, mapped to the attribute meta_int_2 (int).'),
});

/** Header values as the handler receives them (Node lower-cases header names). */
type IngestHeaders = { [K in keyof Static<typeof IngestHeadersSchema> as Lowercase<K & string>]?: string } & { 'content-type'?: string; 'content-length'?: string };

/** The operation's request body in the OpenAPI document: the file's bytes, optional with X-Remote-URL. */
export const INGEST_REQUEST_BODY = {
  required: false,
  description: 'The file\'s raw bytes, sent as Content-Type: application/octet-stream with Content-Disposition naming the file. '
    + 'Omit the body when X-Remote-URL is given. Any other content type (JSON, multipart, form) is refused and creates nothing.',
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
} as const;

/**
 * `@fastify/swagger` transformObject step: gives ingest its binary request body. The route has no
 * body schema, since the body is a stream the domain reads, so the generator cannot derive one.
 */
export function documentIngestBody<T extends object>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, Record<string, unknown>> | undefined> }).paths;
  const op = paths?.['/v3/docsearch/ingest']?.post;
  if (op) op.requestBody = INGEST_REQUEST_BODY;
  return doc;
}

export async function registerIngestRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.addSchema(PublicJobSchema);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // A body that is a file's bytes serialised as JSON (a generic client's default serialiser) is
    // refused while it streams, before anything is stored.
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, refuseSerialisedBytes(payload)));
    scope.post<{ Headers: IngestHeaders }>('/docsearch/ingest', {
      bodyLimit: services.config.maxUploadBytes,
      schema: {
        tags: ['ingest'], operationId: 'ingestDocument', summary: 'Create an ingestion job for one file',
        description: 'Body: the file as application/octet-stream with Content-Disposition: attachment; filename="x.ext"; or no body and X-Remote-URL.',
        headers: IngestHeadersSchema,
        response: {
          201: { $ref: 'PublicJob#' }, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema,
          409: ErrorBodySchema, 413: ErrorBodySchema, 429: ErrorBodySchema,
        },
      },
    }, async (request, reply) => {
      const hdr = request.headers;
      const job = await services.ingest.createJob(request.project, {
        contentType: hdr['content-type'],
        contentDisposition: hdr['content-disposition'],
        contentLength: hdr['content-length'],
        remoteUrl: hdr['x-remote-url'],
        baseUrl: hdr['x-base-url'],
        completion: hdr['x-completion'],
        idempotencyKey: hdr['idempotency-key'],
        sourceId: hdr['x-source-id'],
        unencryptedStrings: hdr['x-unencrypted-strings'],
        attributes: hdr['x-attributes'],
        attributeSchema: hdr['x-attribute-schema'],
        labels: hdr['x-labels'],
        metaInt1: hdr['x-meta-int-1'],
        metaInt2: hdr['x-meta-int-2'],
      }, (request.body as Readable | undefined) ?? null);
      return reply.status(201).send(job);
    });
  });
}
