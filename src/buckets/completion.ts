// Completion notification of a bucket task (spec "Events": X-Completion with pipe-separated webhook or
// e-mail targets, ≤ 1024 bytes, sent once when the task reaches a terminal state). The event is recorded
// INSIDE the transaction that makes the task terminal — a webhook delivery row + an internal webhook job
// (reusing the ingest jobs' signed, retried, SSRF-guarded sender in src/notifications/) and an e-mail row + an
// e-mail job per address — so it exists exactly once per run (retryFailed starts a new run, and its end
// is notified again, with a new event id).
import crypto from 'node:crypto';
import { AppError } from '../internal/errors.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import { nowIso } from '../storage/db.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { WEBHOOK_JOB_KIND } from '../notifications/completion-webhooks.ts';
import { MAX_COMPLETION_HEADER_BYTES } from './limits.ts';
import type { TaskRow, Trx } from './task-store.ts';
import type { TaskView } from './task-view.ts';

export const BUCKET_COMPLETED_EVENT = 'bucket_ingest.completed';
export const EMAIL_JOB_KIND = 'internal:bucket-email';
/** Most targets one X-Completion header may name (the header is at most 1024 bytes). */
const MAX_TARGETS = 16;

export type CompletionTarget = { kind: 'webhook'; url: string } | { kind: 'email'; address: string };

const EMAIL_RE = /^[^\s@|<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/**
 * Parse X-Completion: `target|target|…`, each an http(s) URL or an e-mail address.
 * @param smtpConfigured e-mail targets are refused when the server has no SMTP relay
 * @throws AppError invalid_header (400) naming the bad target; remote_url_forbidden (403) for a private URL
 */
export function parseCompletionHeader(raw: string | undefined, net: NetGuard, smtpConfigured: boolean): CompletionTarget[] {
  if (raw === undefined || raw.trim() === '') return [];
  if (Buffer.byteLength(raw, 'utf8') > MAX_COMPLETION_HEADER_BYTES) {
    throw new AppError('invalid_header', `X-Completion is longer than ${MAX_COMPLETION_HEADER_BYTES} bytes.`, { header: 'X-Completion', max_bytes: MAX_COMPLETION_HEADER_BYTES });
  }
  const parts = raw.split('|').map((s) => s.trim()).filter(Boolean);
  if (parts.length > MAX_TARGETS) throw new AppError('invalid_header', `X-Completion has more than ${MAX_TARGETS} targets.`, { header: 'X-Completion' });
  const out: CompletionTarget[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    if (seen.has(p.toLowerCase())) continue;
    seen.add(p.toLowerCase());
    if (/^https?:\/\//i.test(p)) {
      out.push({ kind: 'webhook', url: net.checkUrl(p).toString() });
    } else if (EMAIL_RE.test(p.replace(/^mailto:/i, ''))) {
      if (!smtpConfigured) throw new AppError('invalid_header', 'X-Completion names an e-mail address, but this server has no SMTP relay configured (DOCSEARCH_SMTP_URL); use a webhook URL.', { header: 'X-Completion' });
      out.push({ kind: 'email', address: p.replace(/^mailto:/i, '') });
    } else {
      throw new AppError('invalid_header', `X-Completion target "${p.slice(0, 100)}" is neither an http(s) URL nor an e-mail address.`, { header: 'X-Completion' });
    }
  }
  return out;
}

/** Subject and plain-text body of the completion e-mail. */
export function emailContent(view: TaskView): { subject: string; body: string } {
  const p = view.progress;
  return {
    subject: `[docsearch] Bucket ingest ${view.bucket_ingest_task_id} finished: ${view.state}`,
    body: [
      `Your bucket ingest task has finished with state "${view.state}".`,
      '',
      view.state_description,
      '',
      `Source: ${view.source.type}://${view.source.bucket}/${view.source.prefix}`,
      `Files: ${p.files_done} ingested, ${p.files_failed} failed, ${p.files_found} found.`,
      `Task: ${view.poll_url}`,
      '',
      'The full task view:',
      JSON.stringify(view, null, 2),
    ].join('\n'),
  };
}

/**
 * Record the completion event of a task run (call inside the terminal transition's transaction).
 * @param view the task's final view (what the webhook's `data` carries)
 */
export async function recordCompletion(trx: Trx, queue: JobQueue, task: TaskRow, view: TaskView, opts: { webhookMaxAttempts: number; emailMaxAttempts: number }): Promise<void> {
  const targets = JSON.parse(task.completion) as CompletionTarget[];
  if (!targets.length) return;
  const now = nowIso();
  for (const t of targets) {
    if (t.kind === 'webhook') {
      const id = 'msg_' + crypto.randomUUID().replace(/-/g, '');
      const body = JSON.stringify({ type: BUCKET_COMPLETED_EVENT, timestamp: now, data: view });
      await trx.insertInto('webhook_deliveries').values({
        id, project_id: task.project_id, job_id: task.id, event_type: BUCKET_COMPLETED_EVENT, url: t.url, headers: '{}',
        payload: body, status: 'pending', attempts: 0, last_status_code: null, last_error: null, created_at: now, updated_at: now, delivered_at: null,
      }).execute();
      await queue.enqueue({ projectId: task.project_id, kind: WEBHOOK_JOB_KIND, filename: `bucket-task-${task.id}`, size: 0,
        maxAttempts: opts.webhookMaxAttempts, payload: { deliveryId: id } }, trx);
    } else {
      const id = crypto.randomUUID();
      const { subject, body } = emailContent(view);
      await trx.insertInto('bucket_task_emails').values({
        id, task_id: task.id, run: task.run, address: t.address, subject, body, status: 'pending', attempts: 0,
        last_error: null, created_at: now, updated_at: now, sent_at: null,
      }).execute();
      await queue.enqueue({ projectId: task.project_id, kind: EMAIL_JOB_KIND, filename: `bucket-task-${task.id}`, size: 0,
        maxAttempts: opts.emailMaxAttempts, payload: { emailId: id } }, trx);
    }
  }
}
