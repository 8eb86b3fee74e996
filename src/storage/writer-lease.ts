// This process's side of the per-namespace writer lease (docs/scale-out.md): one node at a
// time may commit to a namespace's index table. Callers in this process share one held lease per
// namespace (re-entrant, reference-counted; the in-process KeyedMutex of the index still orders their
// commits), a timer renews it while it is held, and it is released as soon as nobody here needs it.
// A node that finds the lease taken queues itself (wanted_by) and polls, so two busy nodes alternate
// instead of one starving the other. A holder that died is taken over once its lease expires.
import { AppError } from '../internal/errors.ts';
import { LeaseStore, type HeldLease } from './lease-store.ts';

export interface WriterLeaseOptions {
  /** This node's lease owner id (jobs/queue-support leaseOwnerId). */
  owner: string;
  /** Lease time-to-live, ms. A dead holder is taken over after at most this long. Default 15 000. */
  ttlMs?: number;
  /** Poll interval of a waiting node, ms (±50 % jitter). Default 50. */
  pollMs?: number;
  /** How long a writer waits for the lease before giving up with a retryable 503, ms. Default 600 000. */
  waitMs?: number;
  /**
   * True when `owner` is certainly a dead process (same host, PID gone: jobs/queue-support
   * releasableOwners); its lease is then taken over at once instead of after the TTL.
   */
  isDead?: (owner: string) => boolean;
  /** Receives renewal failures (logged by the caller). */
  onError?: (namespace: string, err: unknown) => void;
}

interface Holding {
  refs: number;
  /** Settles once the lease is ours (first holder's acquisition). */
  ready: Promise<void>;
  lease?: HeldLease;
  /** Local time (ms) until which the lease is certainly ours: measured from before the acquiring query. */
  validUntil: number;
  lost: boolean;
  timer?: NodeJS.Timeout;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class WriterLeases {
  readonly owner: string;
  private readonly ttlMs: number;
  private readonly pollMs: number;
  private readonly waitMs: number;
  private readonly held = new Map<string, Holding>();
  private closed = false;

  constructor(private readonly store: LeaseStore, private readonly opts: WriterLeaseOptions) {
    this.owner = opts.owner;
    this.ttlMs = opts.ttlMs ?? 15_000;
    this.pollMs = opts.pollMs ?? 50;
    this.waitMs = opts.waitMs ?? 600_000;
  }

  /**
   * Run `fn` while this node holds the writer lease of `namespace`, waiting for it when another node
   * holds it. Nested and concurrent calls in this process share the lease.
   * @throws AppError backend_unavailable (503, `retryable`) when the lease stays taken for `waitMs`
   */
  async hold<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
    let h = this.held.get(namespace);
    if (!h) {
      const fresh: Holding = { refs: 0, validUntil: 0, lost: false, ready: Promise.resolve() };
      fresh.ready = this.acquire(namespace, fresh);
      this.held.set(namespace, fresh);
      h = fresh;
    }
    h.refs++;
    try {
      await h.ready;
      return await fn();
    } finally {
      h.refs--;
      if (h.refs === 0 && this.held.get(namespace) === h) {
        this.held.delete(namespace);
        clearInterval(h.timer);
        if (h.lease) await this.store.release(namespace, this.owner, h.lease).catch((err) => this.opts.onError?.(namespace, err));
      }
    }
  }

  /**
   * Call right before each commit inside hold(): makes sure at least half the TTL of the lease is left
   * (renewing now if less), re-acquiring it (waiting) when another node took it over meanwhile.
   */
  async ensureValid(namespace: string): Promise<void> {
    const h = this.held.get(namespace);
    if (!h || h.refs === 0) throw new AppError('internal_error', `commit to ${namespace} outside its writer lease`);
    await h.ready;
    if (!h.lost && h.validUntil - Date.now() >= this.ttlMs / 2) return;
    if (!h.lost && (await this.renew(namespace, h))) return;
    h.ready = this.acquire(namespace, h);
    await h.ready;
  }

  /** Shutting down: callers still waiting for a lease give up (retryable); held leases end with their holds. */
  close(): void {
    this.closed = true;
  }

  /** True while this process holds the lease of `namespace` (tests, diagnostics). */
  holds(namespace: string): boolean {
    const h = this.held.get(namespace);
    return !!h && !!h.lease && !h.lost;
  }

  private async acquire(namespace: string, h: Holding): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    clearInterval(h.timer);
    for (;;) {
      const t0 = Date.now();
      const lease = await this.store.tryAcquire(namespace, this.owner, this.ttlMs);
      if (lease) {
        Object.assign(h, { lease, validUntil: t0 + this.ttlMs, lost: false });
        h.timer = setInterval(() => void this.renew(namespace, h), Math.max(50, Math.floor(this.ttlMs / 3)));
        h.timer.unref();
        return;
      }
      if (Date.now() > deadline || this.closed) {
        const why = this.closed ? 'this node is shutting down' : `another node has held it for over ${Math.round(this.waitMs / 1000)} s`;
        throw Object.assign(new AppError('backend_unavailable',
          `The index writer lease of namespace ${namespace} could not be had (${why}); try again later.`, { namespace }, 5), { retryable: true });
      }
      await this.store.want(namespace, this.owner, this.ttlMs);
      if (await this.expireIfDead(namespace)) continue;
      await sleep(this.pollMs * (0.5 + Math.random()));
    }
  }

  /** Expire the lease of a holder, or the queue place of a waiter, that is certainly dead. @returns true when one was */
  private async expireIfDead(namespace: string): Promise<boolean> {
    const isDead = this.opts.isDead;
    if (!isDead) return false;
    const now = await this.store.inspect(namespace);
    let changed = false;
    if (now?.wantedBy && now.wantedBy !== this.owner && isDead(now.wantedBy)) {
      await this.store.unwant(namespace, now.wantedBy);
      changed = true;
    }
    if (now?.holder && now.expiresInMs > 0 && isDead(now.holder)) {
      await this.store.expire(namespace, now.holder, now.epoch);
      changed = true;
    }
    return changed;
  }

  /** Extend the lease; marks it lost when another node took it. @returns true when still ours */
  private async renew(namespace: string, h: Holding): Promise<boolean> {
    if (!h.lease || h.lost) return false;
    const t0 = Date.now();
    try {
      if (await this.store.renew(namespace, this.owner, h.lease, this.ttlMs)) {
        h.validUntil = t0 + this.ttlMs;
        return true;
      }
      h.lost = true;
      clearInterval(h.timer);
      this.opts.onError?.(namespace, new Error(`writer lease of ${namespace} was taken over by another node`));
      return false;
    } catch (err) {
      this.opts.onError?.(namespace, err);
      return false;
    }
  }
}
