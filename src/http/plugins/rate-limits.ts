// Request rate limits (3,000 searches from one key in 18.7 s were all answered): per client IP
// on every route but the probes, and per project on the search and ingest endpoints, counted by
// @fastify/rate-limit's store in fixed one-minute windows. Over a limit the request is refused before its
// body is read with 429 rate_limited, `Retry-After` (seconds to the window's end) and the one error
// body shape. Counters live in this process or, shared by every API process, in the control plane
// (RateCounters; docs/admission.md).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import { AppError } from '../../internal/errors.ts';
import { DEFAULT_ADMISSION, type AdmissionConfig } from '../../internal/config.ts';

/** Evaluations per project per minute when a hand-built AdmissionConfig has no value. */
const DEFAULT_EVALUATIONS_PER_MIN = DEFAULT_ADMISSION.evaluationsPerMin;
import type { RateCounters } from '../../storage/rate-counters.ts';

type Checker = ReturnType<FastifyInstance['createRateLimit']>;

/** Route classes limited per project: the route paths (as registered, without /v3) of each. */
const CLASSES: Record<'search' | 'ingest' | 'evaluation', string[]> = {
  search: ['/docsearch/search', '/docsearch/searchInDoc'],
  ingest: ['/docsearch/ingest', '/docsearch/ingestBucket'],
  // Its own budget: an evaluation's searches run in-process and never touch the search limit.
  evaluation: ['/docsearch/evaluations'],
};

/** Routes never limited: liveness and readiness probes. */
const EXEMPT = new Set(['/healthz', '/readyz']);

/** One fixed window: the limits are counts per minute (docs/admission.md). */
const WINDOW_MS = 60_000;

function classOf(request: FastifyRequest): keyof typeof CLASSES | undefined {
  if (request.method !== 'POST') return undefined;
  const url = (request.routeOptions.url ?? '').replace(/^\/v3/, '');
  return (Object.keys(CLASSES) as Array<keyof typeof CLASSES>).find((c) => CLASSES[c].includes(url));
}

async function enforce(check: Checker, request: FastifyRequest, scope: string, limit: number): Promise<void> {
  const r = await check(request);
  if (r.isAllowed || !r.isExceeded) return;
  const seconds = Math.max(1, r.ttlInSeconds);
  throw new AppError('rate_limited', `Rate limit of ${limit} ${scope} requests per minute exceeded; retry in ${seconds} s.`,
    { scope, limit, window_s: WINDOW_MS / 1000, retry_after_s: seconds }, seconds);
}

type StoreCallback = (err: Error | null, res?: { current: number; ttl: number }) => void;

/**
 * A @fastify/rate-limit store class (the plugin instantiates it) over the control-plane counters: the
 * plugin's `incr`/`read` callback contract mapped onto RateCounters.hit/peek. Every limiter shares the
 * one table; their keys are distinct ('ip:…', 'search:…', 'ingest:…').
 */
function sharedStore(counters: RateCounters): new () => FastifyRateLimitStore {
  const reply = (p: Promise<{ hits: number; resetAtMs: number }>, cb: StoreCallback) => {
    p.then((r) => cb(null, { current: r.hits, ttl: Math.max(0, r.resetAtMs - Date.now()) }), (err: Error) => cb(err));
  };
  return class SharedRateStore implements FastifyRateLimitStore {
    incr(key: string, cb: StoreCallback, timeWindow: number): void {
      reply(counters.hit(key, timeWindow), cb);
    }

    read(key: string, cb: StoreCallback): void {
      reply(counters.peek(key), cb);
    }

    child(): SharedRateStore {
      return this;
    }
  };
}

/**
 * Install the limits on the root instance (before the routes are registered, so every route gets the
 * hooks). The per-IP limit runs first (onRequest, before authentication, so floods of bad keys count
 * too); the per-project limits run in preParsing, after the project scope resolved `request.project`
 * and before an upload is read. A limit of 0 is off.
 * @param counters control-plane counters, used when `cfg.rateLimitStore` is 'shared'
 */
export async function installRateLimits(app: FastifyInstance, cfg: AdmissionConfig, counters?: RateCounters): Promise<void> {
  // Shared counters fail open: a control-plane hiccup must not refuse every request.
  await app.register(rateLimit, cfg.rateLimitStore === 'shared' && counters
    ? { global: false, store: sharedStore(counters), skipOnError: true }
    : { global: false });
  const perIp = cfg.ipPerMin > 0
    ? app.createRateLimit({ max: cfg.ipPerMin, timeWindow: WINDOW_MS, keyGenerator: (req) => `ip:${req.ip}` })
    : undefined;
  const perProject: Partial<Record<keyof typeof CLASSES, { check: Checker; limit: number }>> = {};
  for (const [cls, limit] of [['search', cfg.searchPerMin], ['ingest', cfg.ingestPerMin], ['evaluation', cfg.evaluationsPerMin ?? DEFAULT_EVALUATIONS_PER_MIN]] as const) {
    if (limit > 0) {
      perProject[cls] = {
        limit,
        check: app.createRateLimit({ max: limit, timeWindow: WINDOW_MS, keyGenerator: (req) => `${cls}:${req.project.projectId}` }),
      };
    }
  }
  if (perIp) {
    app.addHook('onRequest', async (request) => {
      if (!EXEMPT.has(request.routeOptions.url ?? '')) await enforce(perIp, request, 'per-client-IP', cfg.ipPerMin);
    });
  }
  app.addHook('preParsing', async (request) => {
    const cls = classOf(request);
    const limiter = cls && perProject[cls];
    if (limiter && request.project) await enforce(limiter.check, request, `${cls} per-project`, limiter.limit);
  });
}
