// Job kind `reindex`: rebuild a namespace into a new index generation while searches read the serving one,
// then switch (docs/reindex.md). The job claims the namespace's build in the control plane, drops tables of
// generations nobody serves or builds (an older one retired by a previous switch, an unfinished build),
// converges the new generation on the serving table in rounds (rebuild.ts), optimises it, and runs the
// last round with every commit to the namespace held off; in that same hold the switch of the serving
// generation and the job's `done` are one control-plane transaction. A worker killed mid-way leaves the
// claim with the job: its next attempt continues the same generation from what it already holds. A job
// that fails or is cancelled releases the claim (terminal hook) and its table is dropped (cleanup).
import type { Logger } from 'pino';
import type { JobKind } from '../jobs/worker.ts';
import type { JobRow, TerminalHook } from '../jobs/queue.ts';
import { AppError } from '../internal/errors.ts';
import { generationTable, runningBuild } from '../storage/index-build.ts';
import { GenerationStore } from '../storage/generation-store.ts';
import { Rebuild, type RebuildDeps } from './rebuild.ts';
import { REINDEX_JOB_KIND, type ReindexPayload } from './reindex-service.ts';

/** Rounds outside the hold at most; the last round then takes what is left, however much. */
const MAX_ROUNDS = 6;
/** Documents left to rebuild below which the next round is the last, under the hold (bounds how long commits wait). */
const LAST_ROUND_DOCS = 20;
/**
 * How long the generation served before a switch is kept, ms: searches that opened its table before the
 * switch finish on it (readers move within DOCSEARCH_INDEX_SYNC_MS); the same grace as the index's cleanup
 * of old table versions (60 s).
 */
export const RETIRE_AFTER_MS = 60_000;

export interface ReindexJobDeps extends RebuildDeps {
  logger: Logger;
  /** Override of RETIRE_AFTER_MS (tests). */
  retireAfterMs?: number;
}

export function reindexJobKind(deps: ReindexJobDeps): JobKind {
  const store = new GenerationStore(deps.cp);
  return {
    kind: REINDEX_JOB_KIND,
    async handle(job, signal, ctx) {
      const { namespace } = JSON.parse(job.payload) as ReindexPayload;
      const generation = await store.claimBuild(namespace, job.id);
      if (generation === null) return { status: 'failed', code: 409, errorCode: 'reindex_running', errorMessage: 'Another reindex of this namespace holds its build.' };
      await dropUnserved(deps, store, namespace, generation);
      const target = generationTable(namespace, generation);
      const t0 = Date.now();
      const rebuild = new Rebuild(deps, job.project_id, namespace, target, signal, (c) => ctx.progress?.({ stage: 'rebuilding', ...c }));
      for (let round = 1; round <= MAX_ROUNDS; round++) {
        if (await purged(deps, job.project_id)) return gone();
        const work = await rebuild.plan();
        if (work.build.length + work.remove.length === 0 || (round > 1 && work.build.length <= LAST_ROUND_DOCS)) break;
        await rebuild.apply(work, false);
      }
      if (await purged(deps, job.project_id)) return gone();
      await deps.index.optimize(target); // indexes built before the switch, outside the hold
      let previous: number | null = null;
      await deps.index.exclusive(namespace, async () => {
        const work = await rebuild.plan();
        await rebuild.apply(work, true);
        ctx.progress?.({ stage: 'switching', ...rebuild.counts });
        // optimize() above folded every row built so far into the BM25 index; the last round's rows are folded
        // as refreshLexical's bound says (always below 20 000 indexed rows, else the scan scores the few left).
        await deps.index.refreshLexical(target);
        await ctx.commitDone(undefined, async (trx) => {
          previous = await store.switchTo(namespace, job.id, generation, runningBuild(deps.embedder.signature), trx);
          if (previous === null) throw new AppError('internal_error', `reindex of ${namespace}: the build was taken from this job`);
        });
      });
      deps.logger.info({ namespace, generation, previous, ms: Date.now() - t0, ...rebuild.counts }, 'reindex switched the namespace to its new generation');
      const retire = setTimeout(() => {
        void dropUnserved(deps, store, namespace, null).catch((err) => deps.logger.warn({ err, namespace }, 'reindex: dropping the retired generation failed'));
      }, deps.retireAfterMs ?? RETIRE_AFTER_MS);
      retire.unref();
      return { status: 'done', code: 200 };
    },
    async cleanup(job: JobRow) {
      const { namespace } = JSON.parse(job.payload) as ReindexPayload;
      await dropUnserved(deps, store, namespace, null);
    },
    retryDelayMs: () => 1000,
  };
}

/** True when the project was deleted (its namespace purged) while the reindex ran. */
async function purged(deps: ReindexJobDeps, projectId: string): Promise<boolean> {
  const p = await deps.cp.db.selectFrom('projects').select('status').where('id', '=', projectId).executeTakeFirst();
  return p?.status !== 'active';
}

/** The outcome of a reindex whose project was deleted meanwhile (its cleanup drops what it built). */
const gone = () => ({ status: 'failed' as const, code: 410, errorCode: 'namespace_purged', errorMessage: 'The project was deleted while its namespace was being reindexed.' });

/**
 * Drop the tables of every generation of `namespace` that is neither served nor being built (`keep`, or
 * the one the control plane records a running build for).
 */
async function dropUnserved(deps: ReindexJobDeps, store: GenerationStore, namespace: string, keep: number | null): Promise<void> {
  const s = await store.state(namespace);
  const top = Math.max(s.generation, s.buildGeneration ?? 0, keep ?? 0);
  for (let g = 0; g <= top; g++) {
    if (g === s.generation || g === keep || (s.buildJobId !== null && g === s.buildGeneration)) continue;
    await deps.index.dropGeneration(namespace, g);
  }
}

/** Terminal hook: a reindex that failed or was cancelled releases its namespace's build in the same transaction. */
export function reindexTerminalHook(store: GenerationStore): TerminalHook {
  return async (trx, job) => {
    if (job.kind !== REINDEX_JOB_KIND || job.status !== 'failed') return;
    const { namespace } = JSON.parse(job.payload) as ReindexPayload;
    await store.releaseBuild(namespace, job.id, trx);
  };
}
