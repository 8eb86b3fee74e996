// The error statuses of the OpenAPI document. A route declares the statuses its own handler gives; the
// layers it runs behind add theirs through an `onRoute` hook: the checks every request passes (a NUL
// or a bad value in the URL, the per-client-IP rate limit, an unexpected failure), and the account and
// project scopes (credentials, X-Project-ID). Every error response is a reference to the one ErrorBody
// schema (a component of the document), which also serialises the body.
import type { RouteOptions } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorBodySchema } from './common.ts';

/** Statuses any route can answer: 400 malformed_request (NUL or bad encoding in the URL), 429 per-IP rate limit, 500. */
export const EVERY_ROUTE_ERRORS = [400, 429, 500] as const;

/** Statuses of the account scope (/projects): no or a bad token 401; a project key 403. */
export const ACCOUNT_SCOPE_ERRORS = [401, 403] as const;

/**
 * Statuses of the project scope (/docsearch, /jobs, /webhooks): 400 no X-Project-ID with account-level
 * credentials, 401 no or a bad token, 403 another project or product, 410 a purged project.
 */
export const PROJECT_SCOPE_ERRORS = [400, 401, 403, 410] as const;

const ERROR_REF = Type.Ref(ErrorBodySchema);

/** True for the ErrorBody schema itself or a copy of it (routes declare it inline or by reference). */
function isErrorBody(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { $id?: string }).$id === ErrorBodySchema.$id;
}

interface DeclareOptions {
  /** Request headers every route of the scope accepts (merged into its headers schema). */
  headers?: Record<string, TSchema>;
}

/**
 * An `onRoute` hook that declares `statuses` (and, by the route's shape, 414 for a path parameter over
 * the length limit and 413 for a JSON body over the size limit) as ErrorBody responses of every route it
 * sees, keeping the responses the route declares itself; `opts.headers` are added to its headers schema
 * unless it already names them (header names compare case-insensitively).
 */
export function declareErrorResponses(statuses: readonly number[], opts: DeclareOptions = {}): (route: RouteOptions) => void {
  return (route) => {
    const schema = (route.schema ?? {}) as Record<string, unknown> & { response?: Record<string, unknown>; headers?: Record<string, unknown> };
    const response: Record<string, unknown> = { ...(schema.response ?? {}) };
    const all = [...statuses];
    if (/[:*]/.test(route.url)) all.push(414);
    if (schema.body !== undefined) all.push(413);
    // One form per route: the serialiser cannot resolve a `$ref` to ErrorBody beside an inline copy.
    for (const [status, r] of Object.entries(response)) if (isErrorBody(r)) response[status] = ERROR_REF;
    for (const status of all) {
      if (!(String(status) in response)) response[String(status)] = ERROR_REF;
    }
    const next: Record<string, unknown> = { ...schema, response };
    if (opts.headers) next.headers = mergeHeaders(schema.headers, opts.headers);
    route.schema = next;
  };
}

/** `headers` (an object schema or absent) with the `extra` properties it lacks, as optional strings. */
function mergeHeaders(headers: Record<string, unknown> | undefined, extra: Record<string, TSchema>): Record<string, unknown> {
  const base = (headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  const properties: Record<string, unknown> = { ...(base.properties ?? {}) };
  const have = new Set(Object.keys(properties).map((k) => k.toLowerCase()));
  for (const [name, s] of Object.entries(extra)) if (!have.has(name.toLowerCase())) properties[name] = s;
  return { ...base, type: 'object', properties };
}
