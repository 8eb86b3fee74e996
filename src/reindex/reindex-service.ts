// The reindex resource: start an online reindex of a project's namespace (a job of kind `reindex` on the
// durable queue, so the job endpoints follow and cancel it; one per namespace at a time) and describe the
// namespace's index with the reindex running in it. The work itself is reindex-job.ts. No Fastify in here.
import crypto from 'node:crypto';
import { AppError } from '../internal/errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { toJobStatusView, type JobStatusView } from '../jobs/job-view.ts';
import type { IndexBuilds, IndexDescription } from './index-builds.ts';
import type { GenerationStore } from '../storage/generation-store.ts';

export const REINDEX_JOB_KIND = 'reindex';

/** What the job carries. */
export interface ReindexPayload {
  namespace: string;
}

/** The reindex running in a namespace, as the description shows it. */
export interface ReindexState {
  job_id: string;
  status: JobStatusView['status'];
  generation: number;
}

type Project = { projectId: string; namespace: string };

export class ReindexService {
  constructor(private readonly deps: { queue: JobQueue; builds: IndexBuilds; generations: GenerationStore }) {}

  /**
   * Queue a reindex of the project's namespace.
   * @returns the job's status view (pending)
   * @throws AppError reindex_running (409) while another reindex of the namespace is pending or running
   */
  async start(project: Project): Promise<JobStatusView> {
    const payload: ReindexPayload = { namespace: project.namespace };
    const r = await this.deps.queue.enqueueWithinCap({
      id: crypto.randomUUID(), projectId: project.projectId, kind: REINDEX_JOB_KIND, filename: 'reindex', size: 0, payload: { ...payload }, maxAttempts: 3,
    }, 1);
    if ('refused' in r) {
      const running = await this.running(project);
      throw new AppError('reindex_running', 'This namespace is being reindexed already; follow that job (GET /v3/jobs/{job_id}/status) or cancel it (DELETE /v3/jobs/{job_id}).',
        running ? { job_id: running.job_id } : undefined);
    }
    return toJobStatusView(r.row);
  }

  /** The namespace's index (index-builds.ts) with the reindex running in it, if any. */
  async describe(project: Project): Promise<IndexDescription & { reindex: ReindexState | null }> {
    const [description, reindex] = await Promise.all([this.deps.builds.describe(project.namespace), this.running(project)]);
    return { ...description, reindex };
  }

  /** The pending or processing reindex job of the namespace, with the generation it builds (once claimed). */
  private async running(project: Project): Promise<ReindexState | null> {
    const job = await this.deps.queue.latestUnfinished(project.projectId, REINDEX_JOB_KIND);
    if (!job) return null;
    const s = await this.deps.generations.state(project.namespace);
    return { job_id: job.id, status: job.status, generation: s.buildJobId === job.id && s.buildGeneration !== null ? s.buildGeneration : Math.max(s.generation, s.buildGeneration ?? 0) + 1 };
  }
}
