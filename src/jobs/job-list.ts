// The ingest jobs of one project, newest first, a page at a time (GET /v3/jobs, docs/jobs.md). A client
// that lost its own record of the jobs it started (a console tab reloaded, a CLI restarted) finds them
// here again with the status view GET /jobs/{id}/status gives. Pages are keyed on (created_at, id), which
// the `jobs_project` index orders, so a page costs the same however many jobs the project has.
import type { Kysely } from 'kysely';
import { AppError } from '../internal/errors.ts';
import type { Database } from '../storage/schema.ts';
import type { JobRow } from './queue.ts';
import { toJobStatusView, type JobStatusView } from './job-view.ts';

/** Job kind the listing shows: single-file and bucket-file ingests (evaluations have their own list). */
const LISTED_KIND = 'ingest';

export type JobState = JobRow['status'];

export interface JobListQuery {
  /** Page size, 1..100. */
  limit: number;
  /** Only jobs in one of these states (all states when absent or empty). */
  statuses?: JobState[];
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

export interface JobListPage {
  jobs: JobStatusView[];
  /** Opaque; pass it as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** Version tag of the cursor: what follows is the base64url of `created_at` + "\n" + job id. */
const CURSOR_TAG = 'j1.';

function encodeCursor(job: Pick<JobRow, 'created_at' | 'id'>): string {
  return CURSOR_TAG + Buffer.from(`${job.created_at}\n${job.id}`, 'utf8').toString('base64url');
}

/**
 * The (created_at, id) a cursor continues after. Only what encodeCursor made is accepted, so an edited
 * or invented cursor is a 400, not an empty page that reads as the end of the list.
 * @throws AppError validation_failed (400)
 */
function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const invalid = () => new AppError('validation_failed', 'querystring.cursor: not a next_cursor returned by this endpoint.', { field: 'querystring.cursor' });
  const body = cursor.startsWith(CURSOR_TAG) ? cursor.slice(CURSOR_TAG.length) : '';
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw invalid();
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.toString('base64url') !== body) throw invalid();
  const [createdAt, id, ...rest] = bytes.toString('utf8').split('\n');
  if (rest.length || !createdAt || !id || Number.isNaN(Date.parse(createdAt))) throw invalid();
  return { createdAt, id };
}

/**
 * One page of the project's ingest jobs, newest first.
 * @param db control-plane database
 * @throws AppError validation_failed (400) for a cursor this function did not make
 */
export async function listJobs(db: Kysely<Database>, projectId: string, query: JobListQuery): Promise<JobListPage> {
  let q = db.selectFrom('jobs').selectAll()
    .where('project_id', '=', projectId).where('kind', '=', LISTED_KIND);
  if (query.statuses?.length) q = q.where('status', 'in', query.statuses);
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor);
    q = q.where((eb) => eb.or([
      eb('created_at', '<', after.createdAt),
      eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
    ]));
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit + 1).execute();
  const page = rows.slice(0, query.limit);
  return {
    jobs: page.map(toJobStatusView),
    next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]) : null,
  };
}
