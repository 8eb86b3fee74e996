// Job kind that sends one completion e-mail of a bucket task over SMTP (nodemailer, DOCSEARCH_SMTP_URL).
// The message row is fixed when the task finishes (completion.ts); this kind only delivers it: each
// attempt is counted on the row, transient SMTP failures retry with exponential backoff, and a 5xx
// permanent rejection of the recipient gives up at once. A sent row is never sent again.
import type { Logger } from 'pino';
import nodemailer, { type Transporter } from 'nodemailer';
import { nowIso, type ControlPlane } from '../storage/db.ts';
import type { JobRow } from '../jobs/queue.ts';
import { RetryableError, type JobKind } from '../jobs/worker.ts';
import { EMAIL_JOB_KIND } from './completion.ts';

export interface EmailDeps {
  cp: ControlPlane;
  smtp?: { url: string; from: string };
  logger: Logger;
  /** First retry delay, ms (doubles per attempt, capped at 1 h). */
  retryBaseMs: number;
}

/** The job kind; one transport per process, created on first use. */
export function bucketEmailJobKind(deps: EmailDeps): JobKind & { close(): void } {
  let transport: Transporter | undefined;
  const getTransport = () => (transport ??= nodemailer.createTransport(deps.smtp!.url));
  const setRow = (id: string, fields: Record<string, unknown>) =>
    deps.cp.db.updateTable('bucket_task_emails').set({ ...fields, updated_at: nowIso() }).where('id', '=', id).where('status', '=', 'pending').execute();
  return {
    kind: EMAIL_JOB_KIND,
    async handle(job: JobRow) {
      const { emailId } = JSON.parse(job.payload) as { emailId: string };
      const row = await deps.cp.db.selectFrom('bucket_task_emails').selectAll().where('id', '=', emailId).executeTakeFirst();
      if (!row || row.status !== 'pending') return { status: 'done', code: 200 };
      if (!deps.smtp) {
        await setRow(row.id, { status: 'failed', last_error: 'SMTP is not configured on this server' });
        return { status: 'failed', code: 503, errorCode: 'smtp_not_configured', errorMessage: 'SMTP is not configured.' };
      }
      let error: string | null = null;
      let permanent = false;
      try {
        await getTransport().sendMail({
          from: deps.smtp.from, to: row.address, subject: row.subject, text: row.body,
          headers: { 'X-Docsearch-Task-Id': row.task_id, 'X-Docsearch-Run': String(row.run) },
          messageId: `<${row.id}@docsearch>`,
        });
      } catch (err) {
        const e = err as { responseCode?: number; message?: string };
        error = String(e.message ?? err).slice(0, 500);
        permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
      }
      await deps.cp.db.updateTable('bucket_task_emails').set({ attempts: row.attempts + 1, last_error: error, updated_at: nowIso() }).where('id', '=', row.id).execute();
      if (!error) {
        await setRow(row.id, { status: 'sent', sent_at: nowIso() });
        return { status: 'done', code: 200 };
      }
      if (permanent || job.attempts >= job.max_attempts) {
        await setRow(row.id, { status: 'failed' });
        deps.logger.warn({ task_id: row.task_id, error }, 'completion e-mail given up');
        return { status: 'failed', code: 502, errorCode: 'email_delivery_failed', errorMessage: `Sending the completion e-mail failed: ${error}` };
      }
      throw new RetryableError(`completion e-mail for task ${row.task_id}: ${error}`);
    },
    retryDelayMs: (attempt) => Math.min(deps.retryBaseMs * 2 ** Math.max(0, attempt - 1), 3600_000),
    close() {
      transport?.close();
    },
  };
}
