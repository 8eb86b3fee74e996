// Helpers shared by the bucket-ingest integration tests: polling a task through the HTTP API.
import assert from 'node:assert/strict';
import { api } from './api.ts';

/** True for the spec's terminal task states. */
export const terminal = (t: any): boolean => ['done', 'done_with_errors', 'failed'].includes(t.state);

/**
 * Poll GET /v3/docsearch/ingestBucket/{id} until `pred` holds.
 * @param opts.seen collects every state observed
 * @param opts.timeoutMs give up after this long (default 90 s)
 * @returns the task view that satisfied `pred`
 */
export async function waitForTask(baseUrl: string, key: string, id: string, pred: (t: any) => boolean, opts: { seen?: Set<string>; timeoutMs?: number } = {}): Promise<any> {
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  for (;;) {
    const r = await api(baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    opts.seen?.add((r.body as any).state);
    if (pred(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
