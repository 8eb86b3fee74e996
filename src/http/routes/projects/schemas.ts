// TypeBox schemas of the projects API (DESIGN.md §6): one definition gives request validation, the
// response serialiser (which also guarantees no field outside the schema — e.g. a key — leaks) and the
// OpenAPI document.
import { Type } from '@sinclair/typebox';
import { ErrorBodySchema } from '../../schemas/common.ts';

const ErrorRef = Type.Ref(ErrorBodySchema);

/** Error responses of every account-scoped endpoint. */
export const accountErrorResponses = { 401: ErrorRef, 403: ErrorRef } as const;
export { ErrorRef };

export const ProductSchema = Type.Union([Type.Literal('docsearch'), Type.Literal('altproduct')], {
  description: 'Only `docsearch` projects may use /docsearch/*.',
});

export const ProjectSchema = Type.Object({
  id: Type.String({ description: 'Project id; send it as X-Project-ID with account-level credentials' }),
  name: Type.String(),
  product: ProductSchema,
  protected: Type.Boolean({ description: 'Protected projects refuse account API keys' }),
  namespace: Type.String({ description: 'The project\'s namespace (`ns_` + 32 hex)' }),
  created_at: Type.String({ format: 'date-time' }),
  index: Type.Optional(Type.Object({
    generation: Type.Integer({ description: 'Generation of the serving index (0 until the first reindex)' }),
    needs_reindex: Type.Boolean({ description: 'Built by another embedder, analyser or table format than the running one (it still answers)' }),
    reasons: Type.Array(Type.String()),
  }, { description: 'GET /project only: whether the namespace\'s index needs a reindex (GET /docsearch/index describes it)' })),
}, { $id: 'Project' });

export const CreateProjectBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  product: ProductSchema,
  protected: Type.Optional(Type.Boolean({ default: false, description: 'Refuse account API keys for this project' })),
}, { additionalProperties: false });

export const CreatedProjectSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  product: ProductSchema,
  protected: Type.Boolean(),
  namespace: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  api_key: Type.String({ description: 'Project API key (`svc_prod_ds_…` for docsearch, `svc_prod_alt_…` for altproduct). Shown only in this response; store it now.' }),
});

export const ListProjectsResponseSchema = Type.Object({
  projects: Type.Array(Type.Ref(ProjectSchema)),
});

export const ProjectIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

export const DeleteProjectResponseSchema = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
});
