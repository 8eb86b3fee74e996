// Completion notifications (X-Completion on ingest). When a job with a completion target becomes
// terminal, the same transaction records one delivery row (the event body is fixed then) and an
// internal "internal:webhook" job — so the event exists exactly once per terminal job and survives
// restarts. The job kind POSTs it, signed (webhook-signature.ts), through the SSRF guard; every attempt
// is recorded in webhook_attempts; failures retry with exponential backoff until the attempts run out.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { isAppError } from '../internal/errors.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import { nowIso, type ControlPlane } from '../storage/db.ts';
import type { JobQueue, JobRow, TerminalHook } from '../jobs/queue.ts';
import { RetryableError, type JobKind } from '../jobs/worker.ts';
import { isInternalKind } from '../jobs/cleanup-job.ts';
import { toJobStatusView } from '../jobs/job-view.ts';
import { signWebhook } from './webhook-signature.ts';
import type { WebhookSecrets } from './webhook-secrets.ts';

export const WEBHOOK_JOB_KIND = 'internal:webhook';
export const JOB_COMPLETED_EVENT = 'job.completed';

/** Headers a completion target may not set (they are ours, or framing). */
const RESERVED = /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|user-agent|webhook-.*)$/i;

export interface WebhookOptions {
  /** First retry delay, ms; doubles per attempt, capped at 1 h, ±10 % jitter. */
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
}

/** Delay before the retry after attempt `attempt` (1-based). */
export function webhookRetryDelayMs(base: number, attempt: number, random = Math.random()): number {
  const d = Math.min(base * 2 ** Math.max(0, attempt - 1), 3600_000);
  return Math.round(d * (0.9 + 0.2 * random));
}

/** Terminal hook: record the completion event of a job that asked for one (inside the terminal transaction). */
export function completionTerminalHook(queue: JobQueue, opts: WebhookOptions): TerminalHook {
  return async (trx, job) => {
    if (isInternalKind(job.kind)) return;
    const completion = (JSON.parse(job.payload) as { completion?: { url?: string; headers?: Record<string, string> } }).completion;
    if (!completion?.url) return;
    const id = 'msg_' + crypto.randomUUID().replace(/-/g, '');
    const now = nowIso();
    const body = JSON.stringify({ type: JOB_COMPLETED_EVENT, timestamp: now, data: toJobStatusView(job) });
    await trx.insertInto('webhook_deliveries').values({
      id, project_id: job.project_id, job_id: job.id, event_type: JOB_COMPLETED_EVENT, url: completion.url,
      headers: JSON.stringify(completion.headers ?? {}), payload: body, status: 'pending', attempts: 0,
      last_status_code: null, last_error: null, created_at: now, updated_at: now, delivered_at: null,
    }).execute();
    await queue.enqueue({
      projectId: job.project_id, kind: WEBHOOK_JOB_KIND, filename: job.filename, size: 0,
      maxAttempts: opts.maxAttempts, payload: { deliveryId: id },
    }, trx);
  };
}

function extraHeaders(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(JSON.parse(raw) as Record<string, string>)) {
    if (!RESERVED.test(k) && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && !/[\r\n]/.test(v)) out[k.toLowerCase()] = v;
  }
  return out;
}

/** The job kind that sends one delivery. */
export function webhookDeliveryJobKind(deps: { cp: ControlPlane; net: NetGuard; secrets: WebhookSecrets; logger: Logger; opts: WebhookOptions }): JobKind {
  const { cp } = deps;
  const setDelivery = (id: string, fields: { status?: 'delivered' | 'failed'; delivered_at?: string; last_error?: string | null }) =>
    cp.db.updateTable('webhook_deliveries').set({ ...fields, updated_at: nowIso() }).where('id', '=', id).where('status', '=', 'pending').execute();
  return {
    kind: WEBHOOK_JOB_KIND,
    async handle(job: JobRow, signal: AbortSignal) {
      const { deliveryId } = JSON.parse(job.payload) as { deliveryId: string };
      const d = await cp.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
      if (!d || d.status !== 'pending') return { status: 'done', code: 200 };
      const { secret } = await deps.secrets.get(d.project_id);
      const ts = Math.floor(Date.now() / 1000);
      const headers = {
        ...extraHeaders(d.headers), 'content-type': 'application/json', 'user-agent': 'docsearch-webhooks/1',
        'webhook-id': d.id, 'webhook-timestamp': String(ts), 'webhook-signature': signWebhook(secret, d.id, ts, d.payload),
      };
      const startedAt = nowIso();
      const t0 = Date.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      let permanent = false;
      try {
        const res = await deps.net.fetch(d.url, { method: 'POST', headers, body: d.payload, maxRedirects: 0, timeoutMs: deps.opts.timeoutMs, signal });
        statusCode = res.statusCode;
        await res.body.dump().catch(() => undefined);
        if (statusCode < 200 || statusCode > 299) error = `receiver answered HTTP ${statusCode}`;
      } catch (err) {
        error = String((err as Error).message).slice(0, 500);
        permanent = isAppError(err) && (err.code === 'remote_url_forbidden' || err.code === 'invalid_remote_url');
      }
      if (signal.aborted) throw new RetryableError('delivery interrupted by shutdown');
      await cp.db.transaction().execute(async (trx) => {
        const attempt = (await trx.selectFrom('webhook_deliveries').select('attempts').where('id', '=', d.id).executeTakeFirstOrThrow()).attempts + 1;
        await trx.insertInto('webhook_attempts').values({ delivery_id: d.id, attempt, started_at: startedAt, duration_ms: Date.now() - t0, status_code: statusCode, error }).execute();
        await trx.updateTable('webhook_deliveries').set({ attempts: attempt, last_status_code: statusCode, last_error: error, updated_at: nowIso() }).where('id', '=', d.id).execute();
      });
      if (!error) {
        await setDelivery(d.id, { status: 'delivered', delivered_at: nowIso() });
        return { status: 'done', code: 200 };
      }
      if (permanent || job.attempts >= job.max_attempts) {
        await setDelivery(d.id, { status: 'failed' });
        deps.logger.warn({ delivery_id: d.id, job_id: d.job_id, error }, 'completion webhook given up');
        return { status: 'failed', code: permanent ? 403 : 502, errorCode: 'webhook_delivery_failed', errorMessage: `Delivery to ${d.url} failed after ${job.attempts} attempt(s): ${error}` };
      }
      throw new RetryableError(`delivery ${d.id} to ${d.url}: ${error}`);
    },
    retryDelayMs: (attempt) => webhookRetryDelayMs(deps.opts.retryBaseMs, attempt),
    // The internal job failed without the handler deciding (its worker died on every attempt).
    async cleanup(job) {
      const { deliveryId } = JSON.parse(job.payload) as { deliveryId: string };
      await setDelivery(deliveryId, { status: 'failed', last_error: 'delivery job failed' });
    },
  };
}
