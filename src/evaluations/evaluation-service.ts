// The evaluation resource: accept an evaluation (one running per project; the run is a job of kind
// `evaluation` on the durable queue, so the job endpoints follow and cancel it), read it with its
// report, list a project's evaluations, delete one, and delete them all with the project. The report is
// stored whole, so it stays readable after the documents it names are deleted. No Fastify in here.
import crypto from 'node:crypto';
import { AppError } from '../internal/errors.ts';
import { nowIso, type ControlPlane } from '../storage/db.ts';
import type { Selectable } from 'kysely';
import type { EvaluationsTable } from '../storage/schema.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { JobService } from '../jobs/job-service.ts';
import type { EvaluationReport, EvaluationRequest, EvaluationStatus, EvaluationVariant, EvaluationView } from './types.ts';
import { variantName } from './evaluation-run.ts';

export const EVALUATION_JOB_KIND = 'evaluation';
/** Evaluations of one project pending or running at once. */
export const RUNNING_PER_PROJECT = 1;

type Row = Selectable<EvaluationsTable>;

/** What the job carries: the evaluation to run and where. */
export interface EvaluationPayload {
  evaluation_id: string;
  namespace: string;
}

export class EvaluationService {
  constructor(private readonly deps: { cp: ControlPlane; queue: JobQueue; jobs: JobService }) {}

  /**
   * Store an evaluation and enqueue its run.
   * @param req validated request (at most 1,000 cases and 4 variants: the schema checks)
   * @returns the pending evaluation (its id is the job's id)
   * @throws AppError validation_failed (400) naming the case whose expectation is missing or inconsistent
   *         (no doc_id, doc_ids or answers; doc_id with doc_ids; pages or chunk_indices without doc_id);
   *         evaluation_running (409) when the project already has one pending or running
   */
  async create(project: { projectId: string; namespace: string }, req: EvaluationRequest): Promise<EvaluationView> {
    for (const [i, c] of req.cases.entries()) {
      if (c.doc_id === undefined && c.doc_ids === undefined && c.answers === undefined) {
        throw new AppError('validation_failed', `body.cases.${i}: give doc_id (or doc_ids), answers or both (what counts as found).`, { field: `body.cases.${i}`, index: i });
      }
      if (c.doc_ids !== undefined && c.doc_id !== undefined) {
        throw new AppError('validation_failed', `body.cases.${i}.doc_ids: give doc_id or doc_ids, not both.`, { field: `body.cases.${i}.doc_ids`, index: i });
      }
      for (const f of ['pages', 'chunk_indices'] as const) {
        if (c[f] !== undefined && c.doc_id === undefined) {
          throw new AppError('validation_failed', `body.cases.${i}.${f}: needs doc_id (the document the ${f === 'pages' ? 'pages' : 'chunks'} belong to).`, { field: `body.cases.${i}.${f}`, index: i });
        }
      }
    }
    const variants: EvaluationVariant[] = req.variants?.length ? req.variants : [{}];
    const names = variants.map(variantName);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) throw new AppError('validation_failed', `body.variants: two variants are named "${dup}"; names must differ.`, { field: 'body.variants' });
    const id = crypto.randomUUID();
    const now = nowIso();
    const { db } = this.deps.cp;
    await db.insertInto('evaluations').values({
      id, project_id: project.projectId, name: req.name ?? `evaluation ${now}`, status: 'pending', case_count: req.cases.length,
      variant_count: variants.length, runs_done: 0, request: JSON.stringify({ cases: req.cases, variants }), report: null,
      error_code: null, error_message: null, created_at: now, finished_at: null,
    }).execute();
    const payload: EvaluationPayload = { evaluation_id: id, namespace: project.namespace };
    const r = await this.deps.queue.enqueueWithinCap({
      id, projectId: project.projectId, kind: EVALUATION_JOB_KIND, filename: 'evaluation', size: req.cases.length, payload: { ...payload }, maxAttempts: 2,
    }, RUNNING_PER_PROJECT);
    if ('refused' in r) {
      await db.deleteFrom('evaluations').where('id', '=', id).execute();
      throw new AppError('evaluation_running', 'This project already has an evaluation pending or running; wait for it (GET /v3/docsearch/evaluations) or delete it.', { limit: RUNNING_PER_PROJECT });
    }
    return this.get(project.projectId, id);
  }

  /** @throws AppError evaluation_not_found (404) unless the project has evaluation `id` */
  async get(projectId: string, id: string): Promise<EvaluationView> {
    return toView(await this.row(projectId, id), true);
  }

  /** The project's evaluations, newest first, without their reports (`summary` carries the headline). */
  async list(projectId: string, limit = 50): Promise<EvaluationView[]> {
    const rows = await this.deps.cp.db.selectFrom('evaluations').selectAll().where('project_id', '=', projectId)
      .orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
    return rows.map((r) => toView(r, false));
  }

  /**
   * Delete an evaluation and its report; a pending or running one is cancelled first (its job ends
   * failed with job_cancelled).
   * @throws AppError evaluation_not_found (404)
   */
  async delete(projectId: string, id: string): Promise<{ evaluation_id: string; deleted: true }> {
    const row = await this.row(projectId, id);
    if (row.status === 'pending' || row.status === 'running') {
      await this.deps.jobs.delete(projectId, id).catch((err: unknown) => {
        if ((err as AppError).code !== 'job_not_found') throw err;
      });
    }
    await this.deps.cp.db.deleteFrom('evaluations').where('project_id', '=', projectId).where('id', '=', id).execute();
    return { evaluation_id: id, deleted: true };
  }

  /** Delete every evaluation of a project (project deletion). */
  async purge(projectId: string): Promise<void> {
    await this.deps.cp.db.deleteFrom('evaluations').where('project_id', '=', projectId).execute();
  }

  private async row(projectId: string, id: string): Promise<Row> {
    const row = await this.deps.cp.db.selectFrom('evaluations').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('evaluation_not_found', `No evaluation "${id}" in this project.`, { evaluation_id: id });
    return row;
  }
}

/** The public view of a row; `withReport` false leaves the report out (lists). */
function toView(r: Row, withReport: boolean): EvaluationView {
  const request = JSON.parse(r.request) as { variants: EvaluationVariant[] };
  const report = r.report ? (JSON.parse(r.report) as EvaluationReport) : undefined;
  return {
    evaluation_id: r.id, job_id: r.id, name: r.name, status: r.status as EvaluationStatus, case_count: Number(r.case_count), variants: request.variants,
    progress: { done: Number(r.runs_done), total: Number(r.case_count) * Number(r.variant_count) },
    created_at: r.created_at, finished_at: r.finished_at,
    ...(r.error_code ? { error: { code: r.error_code, message: r.error_message ?? '' } } : {}),
    ...(report ? { summary: report.variants.map((v) => ({ name: v.name, found_share: v.found_share, recommended_min_relevance: v.recommended_min_relevance.value })) } : {}),
    ...(report && withReport ? { report } : {}),
  };
}
