// GET /status/v1/jobs/{job_id} — the job's status changes as Server-Sent Events (DESIGN.md §5):
// `event: job_status`, `id: <status_version>`,
// `data: {"job_id","status","code","is_terminal","error"?,"error_code"?,"doc_id"?}` (`error` is the
// message string here and its code is `error_code`: docs/compat.md), comment heartbeats, and the
// stream ends after the terminal event. `Last-Event-ID` resumes: the current state is sent only if it
// changed since that id (a reconnect after the terminal event gets 204, which tells an EventSource to
// stop). Headers keep reverse proxies from buffering (X-Accel-Buffering, Cache-Control: no-transform).
// At most `streamsPerProject` streams per project are open at once (per process): one more is
// refused with 429 rate_limited before it starts.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { AppError } from '../../../internal/errors.ts';
import { DEFAULT_ADMISSION } from '../../../internal/config.ts';
import { toStreamEvent } from '../../../jobs/job-view.ts';
import { TERMINAL } from '../../../jobs/queue.ts';
import { JobIdParams } from './schemas.ts';

/** Open streams per project id, per service container. */
const openStreams = new WeakMap<Services, Map<string, number>>();

export async function registerJobStreamRoute(app: FastifyInstance, services: Services): Promise<void> {
  const open = new Set<AbortController>();
  const cap = (services.config.admission ?? DEFAULT_ADMISSION).streamsPerProject;
  // One count per service container: the route is registered under /v3 and at the root.
  const perProject = openStreams.get(services) ?? new Map<string, number>();
  openStreams.set(services, perProject);
  app.addHook('preClose', async () => {
    for (const ac of open) ac.abort();
  });
  app.get<{ Params: { job_id: string } }>('/status/v1/jobs/:job_id', {
    schema: {
      tags: ['jobs'], operationId: 'streamJobStatus', summary: 'Stream a job\'s status changes (text/event-stream)',
      description: 'Events `job_status` with an `id` (use Last-Event-ID to resume), comment heartbeats; ends after the terminal event.',
      params: JobIdParams,
      response: {
        200: { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        204: { description: 'Last-Event-ID names the terminal event: nothing more will come', type: 'null' },
        404: ErrorBodySchema,
        429: ErrorBodySchema,
      },
    },
  }, async (request, reply) => {
    const { projectId } = request.project;
    const jobId = request.params.job_id;
    const job = await services.jobs.row(projectId, jobId); // 404 before the stream starts
    const rawLast = request.headers['last-event-id'];
    const lastRaw = Array.isArray(rawLast) ? rawLast[0] : rawLast;
    const last = lastRaw && /^\d{1,9}$/.test(lastRaw.trim()) ? Number(lastRaw.trim()) : undefined;
    if (last !== undefined && last === job.status_version && TERMINAL.has(job.status)) {
      return reply.status(204).send();
    }
    const streams = perProject.get(projectId) ?? 0;
    if (cap > 0 && streams >= cap) {
      throw new AppError('rate_limited', `This project already has ${streams} open job status streams (at most ${cap}); close one or poll /v3/jobs/{job_id}/status.`, { scope: 'streams per project', limit: cap }, 5);
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
      'x-request-id': request.id,
    });
    res.write('retry: 2000\n\n');
    const ac = new AbortController();
    open.add(ac);
    const stop = () => ac.abort();
    res.on('close', stop);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), services.config.sseHeartbeatMs);
    perProject.set(projectId, (perProject.get(projectId) ?? 0) + 1);
    try {
      await services.jobs.watch(projectId, jobId, last, (row) => {
        res.write(`event: job_status\nid: ${row.status_version}\ndata: ${JSON.stringify(toStreamEvent(row))}\n\n`);
      }, ac.signal);
    } catch (err) {
      request.log.error({ err, job_id: jobId }, 'job status stream failed');
      res.write(`event: error\ndata: ${JSON.stringify({ code: 'internal_error', message: 'The status stream failed; reconnect with Last-Event-ID to resume.' })}\n\n`);
    } finally {
      clearInterval(heartbeat);
      open.delete(ac);
      const left = (perProject.get(projectId) ?? 1) - 1;
      if (left > 0) perProject.set(projectId, left);
      else perProject.delete(projectId);
      res.off('close', stop);
      res.end();
    }
  });
}
