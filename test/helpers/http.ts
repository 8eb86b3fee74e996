// Small HTTP helpers for integration tests: one JSON request function that sets the bearer token and
// X-Project-ID, and `createProject` through the real projects API.
import crypto from 'node:crypto';
import type { TestServer } from './server.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined for an empty body; the raw text when it is not JSON). */
  body: T;
}

export interface ApiOptions {
  /** Bearer token; omit for no Authorization header. */
  token?: string;
  projectId?: string;
  /** JSON-serialised unless a string/Buffer. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Call `{baseUrl}{path}` (full path, e.g. '/v3/projects').
 * @returns status, headers and the parsed body; never throws for HTTP error statuses
 */
export async function request<T = any>(server: Pick<TestServer, 'baseUrl'>, method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (opts.projectId !== undefined) headers['x-project-id'] = opts.projectId;
  let body: string | Buffer | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) body = opts.body;
    else { body = JSON.stringify(opts.body); headers['content-type'] ??= 'application/json'; }
  }
  const res = await fetch(server.baseUrl + path, { method, headers, body: body as unknown as BodyInit | undefined });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) { try { parsed = JSON.parse(text); } catch { parsed = text; } }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/**
 * Create a project through POST /v3/projects with the server's bootstrap account key.
 * @param opts.token  credential to create it with (default: server.accountKey)
 * @throws Error when the API does not answer 201
 */
export async function createProject(
  server: Pick<TestServer, 'baseUrl' | 'accountKey'>,
  opts: { product?: 'docsearch' | 'altproduct'; protected?: boolean; name?: string; token?: string } = {},
): Promise<{ projectId: string; apiKey: string; namespace: string; name: string }> {
  const name = opts.name ?? `test-${crypto.randomBytes(4).toString('hex')}`;
  const res = await request(server, 'POST', '/v3/projects', {
    token: opts.token ?? server.accountKey,
    body: { name, product: opts.product ?? 'docsearch', protected: opts.protected ?? false },
  });
  if (res.status !== 201) throw new Error(`createProject: ${res.status} ${JSON.stringify(res.body)}`);
  return { projectId: res.body.id, apiKey: res.body.api_key, namespace: res.body.namespace, name };
}
