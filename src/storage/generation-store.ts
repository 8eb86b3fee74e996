// The control-plane side of an online reindex (docs/reindex.md): which generation of a namespace's index is
// being built and by which job, and the switch that makes it the serving one. Each operation is one
// row-level compare-and-set on the namespace's namespace_leases row, so it is correct with any number of
// nodes on PostgreSQL and of processes on SQLite. The switch also moves the commit counter: readers that
// compare it (lance-table-cache.ts) read the new generation and open its table.
import { sql, type Kysely } from 'kysely';
import type { ControlPlane } from './db.ts';
import type { Database } from './schema.ts';
import type { IndexBuild } from './index-build.ts';

/** A namespace's generations as the control plane has them. */
export interface GenerationState {
  /** The serving generation. */
  generation: number;
  /** The generation being built and its job; null when no build is under way. */
  buildGeneration: number | null;
  buildJobId: string | null;
}

/** The control plane, or a transaction of it. */
type Db = Kysely<Database>;

export class GenerationStore {
  constructor(private readonly cp: ControlPlane) {}

  /** The namespace's generations (generation 0, no build, for a namespace never written). */
  async state(namespace: string, db: Db = this.cp.db): Promise<GenerationState> {
    const row = await db.selectFrom('namespace_leases').select(['generation', 'build_generation', 'build_job_id'])
      .where('namespace', '=', namespace).executeTakeFirst();
    return {
      generation: Number(row?.generation ?? 0),
      buildGeneration: row?.build_generation == null ? null : Number(row.build_generation),
      buildJobId: row?.build_job_id ?? null,
    };
  }

  /**
   * Claim the namespace's build for job `jobId`: a new generation above every one the namespace has had,
   * unless the job already holds the build (a retry after a crash continues its generation).
   * @returns the generation to build, or null when another job holds the build
   */
  async claimBuild(namespace: string, jobId: string): Promise<number | null> {
    const db = this.cp.db;
    await db.insertInto('namespace_leases')
      .values({ namespace, holder: null, epoch: 0, expires_at: 0, wanted_by: null, wanted_at: null, version: 0 })
      .onConflict((oc) => oc.column('namespace').doNothing()).execute();
    const held = await this.state(namespace);
    if (held.buildJobId === jobId && held.buildGeneration !== null) return held.buildGeneration;
    const next = Math.max(held.generation, held.buildGeneration ?? 0) + 1;
    const r = await db.updateTable('namespace_leases').set({ build_generation: next, build_job_id: jobId })
      .where('namespace', '=', namespace).where('build_job_id', 'is', null).where('generation', '=', held.generation)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? next : null;
  }

  /**
   * Make generation `generation`, built by `jobId`, the serving one, and count a commit so that readers
   * move to it: one update (in the caller's transaction when given, e.g. the one marking the job done).
   * @returns the generation served before, or null when the job no longer holds the build
   */
  async switchTo(namespace: string, jobId: string, generation: number, build: IndexBuild, db: Db = this.cp.db): Promise<number | null> {
    const before = await this.state(namespace, db);
    const r = await db.updateTable('namespace_leases')
      .set({ generation, version: sql`version + 1`, build_job_id: null, build_generation: null, built_with: JSON.stringify(build) })
      .where('namespace', '=', namespace).where('build_job_id', '=', jobId).where('build_generation', '=', generation)
      .where('generation', '=', before.generation)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? before.generation : null;
  }

  /**
   * Release the build of job `jobId` (it failed or was cancelled), in the caller's transaction when given.
   * The unfinished generation stays recorded as the highest, so the next build takes a new number and the
   * project's deletion still finds its table.
   */
  async releaseBuild(namespace: string, jobId: string, db: Db = this.cp.db): Promise<void> {
    await db.updateTable('namespace_leases').set({ build_job_id: null })
      .where('namespace', '=', namespace).where('build_job_id', '=', jobId).execute();
  }
}
