// GET /docsearch/attributes — the project's typed attributes and its name budget (spec "Attribute list
// response"). 401/403/410 come from the project scope; an unreadable registry is 503 with Retry-After,
// never an empty list.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema, ProjectHeaders } from '../../schemas/common.ts';
import { ATTRIBUTE_TYPES } from '../../../attributes/types.ts';

export const AttributeListResponseSchema = Type.Object({
  attributes: Type.Array(Type.Object({
    name: Type.String({ pattern: '^[a-z0-9_]{1,64}$' }),
    type: Type.Unsafe<string>({ type: 'string', enum: [...ATTRIBUTE_TYPES] }),
  }), { description: 'Empty when the project has no typed attributes' }),
  max_names: Type.Integer({ description: 'Per-project cap on attribute names (64)' }),
  note: Type.String({ description: 'Human guidance; not to be parsed' }),
}, { description: 'Attribute list response' });

export async function registerAttributesRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/docsearch/attributes', {
    schema: {
      operationId: 'listAttributes', summary: 'List typed attributes and the name budget',
      description: 'Read it before introducing a new attribute name so that an existing name and type is reused. A 503 must be retried with backoff (see Retry-After) and never read as "no attributes exist". See docs/attributes.md.',
      tags: ['attributes'],
      headers: ProjectHeaders,
      response: { 200: AttributeListResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 410: ErrorBodySchema, 503: ErrorBodySchema },
    },
  }, async (request) => services.attributes.list(request.project.projectId));
}
