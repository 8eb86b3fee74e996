// Schemas shared by several endpoints (TypeBox: one definition gives validation, types and OpenAPI).
import { Type } from '@sinclair/typebox';

export const ErrorBodySchema = Type.Object({
  code: Type.String({ description: 'Stable snake_case error code' }),
  message: Type.String(),
  status: Type.Integer(),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  retry_after_seconds: Type.Optional(Type.Integer({ minimum: 1, description: 'On 429 and 503: seconds to wait before retrying (the Retry-After header)' })),
}, { $id: 'ErrorBody', description: 'Every error response has this shape.' });

/** Error responses every authenticated endpoint can give, for the OpenAPI document. */
export const authErrorResponses = {
  401: ErrorBodySchema,
  403: ErrorBodySchema,
} as const;

/** The X-Project-ID request header; the project scope declares it on each of its routes. */
export const PROJECT_ID_HEADER = {
  'X-Project-ID': Type.Optional(Type.String({ description: 'Project id; required with account-level credentials (account API key, login session), omitted with a project API key' })),
};

export const ProjectHeaders = Type.Object({
  authorization: Type.Optional(Type.String({ description: 'Bearer <token>' })),
  ...PROJECT_ID_HEADER,
});
