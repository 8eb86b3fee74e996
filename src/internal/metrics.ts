// Prometheus metrics (prom-client) of one application instance, served at GET /metrics: HTTP latency by
// route pattern and status, job queue depth and job durations by kind and outcome, search and ingest stage
// timings, index sizes, and prom-client's default process metrics (CPU, memory, GC, event-loop lag).
// One Registry per instance (tests run several apps in one process). Gauges that describe shared state
// (queue depth, index sizes) are read from the control plane at scrape time, so every process of a
// deployment reports the same, current numbers.
import { sql } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Selectable } from 'kysely';
// Types only: the gauges read the control plane that storage/ defines; nothing in storage/ imports this file.
import type { ControlPlane } from '../storage/db.ts';
import type { JobsTable } from '../storage/schema.ts';

/** Latency buckets in seconds (prom-client's defaults stop at 10 s; ingest jobs and parses run longer). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const STAGE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Ingest stages run from milliseconds (a note) to minutes (a long scanned PDF). */
const INGEST_STAGE_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** A scrape waits at most this long for the index read cache's thread to report (ms). */
const CACHE_STATS_TIMEOUT_MS = 1000;

/** Block reads of the index read cache since start, by tier (storage/object-cache.ts). */
export interface IndexCacheStats {
  memoryHits: number;
  diskHits: number;
  misses: number;
  /** Times the cache's thread ended and was started again. */
  restarts?: number;
}

/** Stages of the search pipeline that are timed (search/search-service.ts). */
export type SearchStage = 'scope' | 'embed' | 'retrieve' | 'rank' | 'rerank' | 'expand';

export class Metrics {
  readonly registry = new Registry();
  private readonly http: Histogram<'method' | 'route' | 'status_code'>;
  private readonly jobs: Histogram<'kind' | 'outcome'>;
  private readonly stages: Histogram<'stage'>;
  private readonly ingestStages: Histogram<'stage'>;

  constructor(cp: ControlPlane) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.http = new Histogram({
      name: 'docsearch_http_request_duration_seconds', help: 'HTTP request latency by route pattern, method and status code.',
      labelNames: ['method', 'route', 'status_code'], buckets: HTTP_BUCKETS, registers,
    });
    this.jobs = new Histogram({
      name: 'docsearch_job_duration_seconds', help: 'Time from a job\'s first start (or creation) to its end, by kind and outcome (done, failed, cancelled).',
      labelNames: ['kind', 'outcome'], buckets: JOB_BUCKETS, registers,
    });
    this.stages = new Histogram({
      name: 'docsearch_search_stage_duration_seconds', help: 'Time spent in each stage of the search pipeline.',
      labelNames: ['stage'], buckets: STAGE_BUCKETS, registers,
    });
    this.ingestStages = new Histogram({
      name: 'docsearch_ingest_stage_duration_seconds',
      help: 'Time spent in each stage of ingest (ingest/stage-times.ts): once per committed document, except write and index_refresh, once per commit group.',
      labelNames: ['stage'], buckets: INGEST_STAGE_BUCKETS, registers,
    });
    new Gauge({
      name: 'docsearch_jobs_queued', help: 'Jobs waiting (pending) or running (processing), by kind.',
      labelNames: ['kind', 'status'], registers,
      async collect() {
        const rows = await cp.db.selectFrom('jobs').select(['kind', 'status', sql<number>`count(*)`.as('n')])
          .where('status', 'in', ['pending', 'processing']).groupBy(['kind', 'status']).execute();
        this.reset();
        for (const r of rows) this.set({ kind: r.kind, status: r.status }, Number(r.n));
      },
    });
    new Gauge({
      name: 'docsearch_index_documents', help: 'Visible documents in all namespaces.', registers,
      async collect() { this.set(Number((await indexTotals(cp)).docs)); },
    });
    new Gauge({
      name: 'docsearch_index_chunks', help: 'Chunks (vector and BM25 rows) of the visible documents in all namespaces.', registers,
      async collect() { this.set(Number((await indexTotals(cp)).chunks)); },
    });
  }

  /**
   * Report the index read cache's block reads at each scrape as `docsearch_index_cache_reads_total`, by
   * result: `memory_hit`, `disk_hit`, `miss` (a miss is read from the object store). `read` resolves to
   * null when the index has no read cache; a cache thread that does not answer within 1 s leaves the
   * series out of that scrape rather than holding it.
   */
  watchIndexCache(read: () => Promise<IndexCacheStats | null>): void {
    // Both counters are collected in the same scrape (concurrently): they share one request to the thread.
    let inFlight: Promise<IndexCacheStats | null> | null = null;
    const stats = () => (inFlight ??= Promise.race([
      read().catch(() => null),
      new Promise<null>((resolve) => setTimeout(resolve, CACHE_STATS_TIMEOUT_MS, null).unref()),
    ]).finally(() => { inFlight = null; }));
    new Counter({
      name: 'docsearch_index_cache_reads_total', help: 'Block reads of the index read cache in front of object storage, by result: memory_hit, disk_hit, miss (read from the store).',
      labelNames: ['result'], registers: [this.registry],
      async collect() {
        const s = await stats();
        this.reset();
        if (!s) return;
        this.inc({ result: 'memory_hit' }, s.memoryHits);
        this.inc({ result: 'disk_hit' }, s.diskHits);
        this.inc({ result: 'miss' }, s.misses);
      },
    });
    new Counter({
      name: 'docsearch_index_cache_thread_restarts_total', help: 'Times the index read cache thread ended and was started again on its endpoint.',
      registers: [this.registry],
      async collect() {
        const s = await stats();
        this.reset();
        if (s) this.inc(s.restarts ?? 0);
      },
    });
  }

  /** Record one HTTP request (route: the route pattern, e.g. /v3/docsearch/docs/:docId, never the raw URL). */
  observeHttp(method: string, route: string, statusCode: number, seconds: number): void {
    this.http.observe({ method, route, status_code: String(statusCode) }, seconds);
  }

  /** Record a job that reached a terminal state (queue terminal hook). */
  observeJob(job: Selectable<JobsTable>): void {
    const outcome = job.status === 'done' ? 'done' : job.error_code === 'job_cancelled' ? 'cancelled' : 'failed';
    const from = Date.parse(job.started_at ?? job.created_at);
    const to = Date.parse(job.finished_at ?? new Date().toISOString());
    if (Number.isFinite(from) && Number.isFinite(to)) this.jobs.observe({ kind: job.kind, outcome }, Math.max(0, (to - from) / 1000));
  }

  /** Record the duration of one search stage. */
  observeSearchStage(stage: SearchStage, seconds: number): void {
    this.stages.observe({ stage }, seconds);
  }

  /** Record the time of one ingest stage (of a document, or of a commit group for write and index_refresh). */
  observeIngestStage(stage: string, seconds: number): void {
    this.ingestStages.observe({ stage }, seconds);
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Visible documents and their chunks, summed over every project. */
async function indexTotals(cp: ControlPlane): Promise<{ docs: number; chunks: number }> {
  const row = await cp.db.selectFrom('documents')
    .select([sql<number>`count(*)`.as('docs'), sql<number>`coalesce(sum(chunk_count), 0)`.as('chunks')])
    .where('state', '=', 'visible').executeTakeFirst();
  return { docs: Number(row?.docs ?? 0), chunks: Number(row?.chunks ?? 0) };
}
