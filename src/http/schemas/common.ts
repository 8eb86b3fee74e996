// Schemas shared by several endpoints (TypeBox: one definition gives validation, types and OpenAPI).
import { Type } from '@sinclair/typebox';

export const ErrorBodySchema = Type.Object({
  code: Type.String({ description: 'Stable snake_case error code' }),
  message: Type.String(),
  status: Type.Integer(),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { $id: 'ErrorBody', description: 'Every error response has this shape.' });

/** Error responses every authenticated endpoint can give, for the OpenAPI document. */
export const authErrorResponses = {
  401: ErrorBodySchema,
  403: ErrorBodySchema,
} as const;

export const ProjectHeaders = Type.Object({
  authorization: Type.Optional(Type.String({ description: 'Bearer <token>' })),
  'x-project-id': Type.Optional(Type.String({ description: 'Project id; required with account-level credentials' })),
});
