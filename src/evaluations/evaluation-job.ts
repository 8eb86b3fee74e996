// Job kind `evaluation`: runs a stored evaluation case by case, variant by variant (evaluation-run.ts)
// and commits its report in the same transaction that marks the job done. Progress is written at most
// once a second; a cancelled job (DELETE /jobs/{id} or of the evaluation) stops between cases. The
// terminal hook keeps the evaluation's status in step with its job when the job fails or is cancelled.
import type { Logger } from 'pino';
import type { ControlPlane } from '../storage/db.ts';
import { nowIso } from '../storage/db.ts';
import type { JobKind } from '../jobs/worker.ts';
import type { TerminalHook } from '../jobs/queue.ts';
import { askCase, sweepOf, variantReport, type Asked, type SearchFn } from './evaluation-run.ts';
import { EVALUATION_JOB_KIND, type EvaluationPayload } from './evaluation-service.ts';
import type { EvaluationCase, EvaluationReport, EvaluationVariant } from './types.ts';

/** Minimum time between two progress writes, ms. */
const PROGRESS_EVERY_MS = 1000;

export interface EvaluationJobDeps {
  cp: ControlPlane;
  search: SearchFn;
  logger: Logger;
}

/** The evaluation job kind (one attempt more after a worker died mid-run; nothing else is retried). */
export function evaluationJobKind(deps: EvaluationJobDeps): JobKind {
  const { db } = deps.cp;
  return {
    kind: EVALUATION_JOB_KIND,
    async handle(job, signal, ctx) {
      const payload = JSON.parse(job.payload) as EvaluationPayload;
      const row = await db.selectFrom('evaluations').select(['request']).where('id', '=', payload.evaluation_id).executeTakeFirst();
      if (!row) return { status: 'failed', code: 404, errorCode: 'evaluation_not_found', errorMessage: 'The evaluation was deleted before it ran.' };
      await db.updateTable('evaluations').set({ status: 'running', runs_done: 0 }).where('id', '=', payload.evaluation_id).execute();
      const { cases, variants } = JSON.parse(row.request) as { cases: EvaluationCase[]; variants: EvaluationVariant[] };
      const visible = new Set((await db.selectFrom('documents').select('doc_id').where('project_id', '=', job.project_id)
        .where('state', '=', 'visible').execute()).map((d) => d.doc_id));
      const sctx = { projectId: job.project_id, namespace: payload.namespace };
      let done = 0;
      let wrote = Date.now();
      const report: EvaluationReport = { variants: [] };
      for (const [vi, v] of variants.entries()) {
        const sweep = sweepOf(v);
        const asked: Asked[] = [];
        for (const [ci, c] of cases.entries()) {
          if (signal.aborted) throw new Error('evaluation stopped');
          asked.push(await askCase(deps.search, sctx, c, ci, v, visible, sweep));
          done++;
          if (Date.now() - wrote >= PROGRESS_EVERY_MS) {
            wrote = Date.now();
            await db.updateTable('evaluations').set({ runs_done: done }).where('id', '=', payload.evaluation_id).execute();
          }
        }
        report.variants.push(variantReport(v, vi, sweep, asked));
      }
      await ctx.commitDone(undefined, async (trx) => {
        await trx.updateTable('evaluations').set({ status: 'done', runs_done: done, report: JSON.stringify(report), finished_at: nowIso() })
          .where('id', '=', payload.evaluation_id).execute();
      });
      deps.logger.info({ evaluation_id: payload.evaluation_id, cases: cases.length, variants: variants.length }, 'evaluation done');
      return { status: 'done', code: 200 };
    },
  };
}

/** Terminal hook: an evaluation job that failed (or was cancelled) marks its evaluation so, in the same transaction. */
export function evaluationTerminalHook(): TerminalHook {
  return async (trx, job) => {
    if (job.kind !== EVALUATION_JOB_KIND || job.status !== 'failed') return;
    await trx.updateTable('evaluations')
      .set({ status: job.error_code === 'job_cancelled' ? 'cancelled' : 'failed', error_code: job.error_code ?? 'internal_error', error_message: job.error_message ?? '', finished_at: job.finished_at ?? nowIso() })
      .where('id', '=', job.id).execute();
  };
}
