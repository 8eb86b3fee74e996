// Request generation for the OpenAPI-driven fuzz test: fast-check arbitraries built
// from the service's own /v3/openapi.json — bodies that mostly follow the JSON schemas (so validation is
// passed and the handlers run) mixed with broken ones (wrong types, missing or extra fields, junk
// strings), path parameters and headers from a hostile alphabet. Seeded, so a failure replays.
import fc from 'fast-check';
import { createProject } from './http.ts';

type Schema = Record<string, any>;

export interface FuzzOperation {
  method: string;
  path: string;
  op: Schema;
}

export interface FuzzRequest {
  method: string;
  /** Path with parameters filled in (already percent-encoded, possibly badly). */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Strings that break naive code: control and bidi characters, huge numbers as text, traversal, emoji. */
const NASTY = ['', ' ', '\u0000', '\u202e', '\u001b[31m', '../../etc/passwd', '%00', '%zz', '9'.repeat(40), '-1', 'null', '{}', '😀', 'a'.repeat(300), '<script>', "' OR 1=1 --"];

const nastyString = fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));

/** Resolve a local `$ref` (#/components/schemas/…) against the document. */
function deref(schema: Schema, doc: Schema): Schema {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const parts = String(s.$ref).replace(/^#\//, '').split('/');
    s = parts.reduce((o: Schema, p) => o?.[p], doc) ?? {};
  }
  return s ?? {};
}

/** An arbitrary of values that satisfy `schema` (as far as this small interpreter goes). */
export function validValue(schema: Schema, doc: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(schema, doc);
  if (depth > 4) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts) && alts.length) return fc.oneof(...alts.map((a: Schema) => validValue(a, doc, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 60) });
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(s.items ?? {}, doc, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    case 'object': {
      const props: Record<string, Schema> = s.properties ?? {};
      const required = new Set<string>(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = validValue(v, doc, depth + 1);
      return fc.record(model, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body for `schema`: usually valid, sometimes broken in one of several ways, sometimes not JSON. */
export function bodyFor(schema: Schema | undefined, doc: Schema): fc.Arbitrary<string | undefined> {
  const valid = schema ? validValue(schema, doc) : fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((v) => (v === undefined ? undefined : JSON.stringify(v))) },
    { weight: 2, arbitrary: fc.tuple(valid, fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })).map(([v, k, x]) => JSON.stringify(v && typeof v === 'object' && !Array.isArray(v) ? { ...v, [k]: x } : x)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.oneof(nastyString, fc.constant('{"a":'), fc.constant('[]')) },
  );
}

/** Every operation of the document, minus the `skip` predicate. */
export function operations(doc: Schema, skip: (method: string, path: string) => boolean): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops as Record<string, Schema>)) {
      if (!skip(method.toUpperCase(), path)) out.push({ method: method.toUpperCase(), path, op });
    }
  }
  return out;
}

/**
 * Requests for the operations: path parameters from `ids` (real ones) or hostile strings (encoded or
 * raw), the caller's auth headers or broken ones, and a body from the operation's JSON schema.
 */
export function requestArb(ops: FuzzOperation[], doc: Schema, auth: Record<string, string>, ids: string[]): fc.Arbitrary<FuzzRequest> {
  const param = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids).map(encodeURIComponent) },
    { weight: 3, arbitrary: nastyString.map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%', '%E0%A4%A', 'a'.repeat(2000), '..', '%2e%2e%2f') },
  );
  const headers = fc.oneof(
    { weight: 8, arbitrary: fc.constant(auth) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: nastyString.map((t) => ({ ...auth, authorization: `Bearer ${t.replace(/[^\x21-\x7e]/g, '')}`, 'x-project-id': t.replace(/[^\x21-\x7e]/g, '') })) },
  );
  return fc.constantFrom(...ops).chain((o) => {
    const schema = o.op.requestBody?.content?.['application/json']?.schema;
    const names = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    return fc.tuple(fc.array(param, { minLength: names.length, maxLength: names.length }), headers, bodyFor(schema, doc), fc.boolean())
      .map(([values, h, body, ctype]) => {
        let path = o.path;
        names.forEach((n, i) => { path = path.replace(`{${n}}`, values[i]); });
        const hs: Record<string, string> = { ...h };
        // A JSON body where the schema wants one (declared as JSON, or as JSON with a charset); a stray
        // text body on some other POST/PUT/PATCH/DELETE; never one on GET/HEAD (fetch refuses it).
        const send = body !== undefined && (schema !== undefined || (ctype && o.method !== 'GET' && o.method !== 'HEAD'));
        if (send) hs['content-type'] = schema ? (ctype ? 'application/json' : 'application/json; charset=utf-8') : 'text/plain';
        return { method: o.method, path, headers: hs, body: send ? body : undefined };
      });
  });
}

/** Operations the fuzzers leave out: bucket sources and credentials (they reach out of the machine), deleting the project. */
export function fuzzSkip(method: string, path: string): boolean {
  return (path.includes('/ingestBucket') && (method === 'POST' || method === 'PATCH') && !/pause|resume|retryFailed/.test(path))
    || (method === 'DELETE' && path === '/v3/projects/{id}');
}

/** Send one generated request to `baseUrl`; an SSE stream's headers are enough (it would stay open). */
export async function sendFuzzRequest(baseUrl: string, r: FuzzRequest): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(baseUrl + r.path, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(15_000) });
  const type = res.headers.get('content-type') ?? '';
  const text = type.startsWith('text/event-stream') ? (await res.body?.cancel(), '') : await res.text();
  return { status: res.status, text, type };
}

/**
 * What is wrong with a response: '5xx', 'shape' (an error body that is not {code, message, status,
 * details?, retry_after_seconds?} with status equal to the HTTP status), or undefined when it is fine.
 */
export function fuzzViolation(res: { status: number; text: string }): '5xx' | 'shape' | undefined {
  if (res.status >= 500) return '5xx';
  if (res.status < 400) return undefined;
  let body: Record<string, unknown> | undefined;
  try { body = JSON.parse(res.text); } catch { return 'shape'; }
  const keys = body && typeof body === 'object' ? Object.keys(body).filter((k) => k !== 'details' && k !== 'retry_after_seconds').sort().join() : '';
  return !body || keys !== 'code,message,status' || body.status !== res.status || typeof body.code !== 'string' ? 'shape' : undefined;
}

/**
 * A project with one uploaded file to aim at: its key as auth headers, and real ids (project, job,
 * document when known) for path parameters.
 */
export async function fuzzTarget(server: { baseUrl: string; accountKey: string }): Promise<{ auth: Record<string, string>; ids: string[] }> {
  const p = await createProject(server);
  const auth = { authorization: `Bearer ${p.apiKey}` };
  const res = await fetch(`${server.baseUrl}/v3/docsearch/ingest`, {
    method: 'POST', body: 'fuzz target',
    headers: { ...auth, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="f.txt"' },
  });
  const job = (await res.json()) as { job_id: string; doc_id?: string };
  return { auth, ids: [p.projectId, job.job_id, ...(job.doc_id ? [job.doc_id] : [])] };
}
