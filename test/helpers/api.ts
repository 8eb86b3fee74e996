// Small HTTP client helpers for integration tests: JSON calls with a bearer key, raw-file ingest, and
// polling a job to a terminal state. They talk to the real server over a socket.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Absolute path of a file under ../shared/data. */
export function dataPath(...parts: string[]): string {
  return path.resolve(repoRoot, '../shared/data', ...parts);
}

export interface ApiResult {
  status: number;
  body: unknown;
  headers: Headers;
}

/** JSON request with `Authorization: Bearer key` (key may be undefined to test 401). */
export async function api(baseUrl: string, key: string | undefined, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResult> {
  const h: Record<string, string> = { ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  let payload: string | undefined;
  if (body !== undefined) {
    h['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(baseUrl + urlPath, { method, headers: h, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { /* keep text */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Upload a file as raw octet-stream with Content-Disposition. */
export async function ingestFile(baseUrl: string, key: string, file: string, headers: Record<string, string> = {}): Promise<ApiResult> {
  const res = await fetch(baseUrl + '/v3/docsearch/ingest', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${path.basename(file)}"`,
      ...headers,
    },
    body: fs.readFileSync(file),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* keep text */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * Upload `text` as file `name` and wait for its job.
 * @returns the finished job's doc_id (asserts the upload was accepted and the job is done)
 */
export async function uploadText(baseUrl: string, key: string, text: string, name: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v3/docsearch/ingest`, {
    method: 'POST', body: text,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` },
  });
  const body = await res.json() as { job_id: string };
  if (res.status !== 201) throw new Error(`upload of ${name}: ${res.status} ${JSON.stringify(body)}`);
  const done = await waitForJob(baseUrl, key, body.job_id);
  if (done.status !== 'done') throw new Error(`ingest of ${name}: ${JSON.stringify(done)}`);
  return done.doc_id!;
}

/**
 * Ingest `totalBytes` of filler as a chunked stream (no Content-Length), e.g. to cross the upload limit.
 * @returns the response, or the fetch error when the server closed the socket before the body was sent
 */
export async function ingestStream(baseUrl: string, key: string, totalBytes: number, filename = 'big.txt'): Promise<Response | Error> {
  const chunk = Buffer.alloc(64 * 1024, 98);
  let sent = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) { controller.close(); return; }
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return fetch(baseUrl + '/v3/docsearch/ingest', {
    method: 'POST', body, duplex: 'half',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${filename}"` },
  } as RequestInit).catch((err: Error) => err);
}

export interface JobStatus {
  job_id: string;
  status: string;
  code: number;
  doc_id?: string;
  error?: { code: string; message: string };
  [k: string]: unknown;
}

/** Poll GET /v3/jobs/{id}/status until done/failed (or throw after timeoutMs). */
export async function waitForJob(baseUrl: string, key: string, jobId: string, timeoutMs = 120_000): Promise<JobStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api(baseUrl, key, 'GET', `/v3/jobs/${jobId}/status`);
    if (r.status !== 200) throw new Error(`job status ${r.status}: ${JSON.stringify(r.body)}`);
    const s = r.body as JobStatus;
    if (s.status === 'done' || s.status === 'failed') return s;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${s.status} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/**
 * Ingest files one by one and wait for each job to be done.
 * @param files paths under ../shared/data/docs (e.g. 'pdf/tracemonkey.pdf'), or absolute paths
 * @returns doc_id per file path
 * @throws AssertionError when an upload is not 201 or a job does not end done
 */
export async function ingestDocsDone(baseUrl: string, key: string, files: string[], timeoutMs = 180_000): Promise<Record<string, string>> {
  const docs: Record<string, string> = {};
  for (const f of files) {
    const r = await ingestFile(baseUrl, key, path.isAbsolute(f) ? f : dataPath('docs', f));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const done = await waitForJob(baseUrl, key, (r.body as { job_id: string }).job_id, timeoutMs);
    assert.equal(done.status, 'done', `${f}: ${JSON.stringify(done)}`);
    docs[f] = done.doc_id as string;
  }
  return docs;
}
