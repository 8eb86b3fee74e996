// Login throttling (100 wrong passwords in 1.5 s were all answered): failures are counted per
// account (e-mail) and per client IP; past a number of free failures every further attempt must wait,
// and each failure doubles the wait (exponential backoff, capped). An attempt is counted when it
// starts, not when its password check ends, so a burst of parallel guesses is throttled too; a success
// clears the account's count. Counters live in this process (bounded LRU, forgotten after a quiet
// period), like the request rate limits (docs/admission.md).
import { LRUCache } from 'lru-cache';
import { AppError } from '../internal/errors.ts';

export interface LoginThrottleOptions {
  /** Failures of one account before backoff starts. */
  freeFailures: number;
  /** Failures from one IP (any account) before backoff starts. */
  ipFreeFailures: number;
  /** First wait, ms; doubles per further failure up to maxMs. */
  baseMs: number;
  maxMs: number;
}

interface Entry {
  failures: number;
  /** Epoch ms before which attempts are refused. */
  lockedUntil: number;
}

/** Tracked keys per kind; the least recently used is forgotten first. */
const MAX_KEYS = 100_000;

export class LoginThrottle {
  private readonly accounts: LRUCache<string, Entry>;
  private readonly ips: LRUCache<string, Entry>;

  /** @param now clock in epoch ms (tests pass a fake one) */
  constructor(private readonly opts: LoginThrottleOptions, private readonly now: () => number = Date.now) {
    // A key unused for twice the longest wait starts afresh.
    const ttl = Math.max(60_000, 2 * opts.maxMs);
    this.accounts = new LRUCache({ max: MAX_KEYS, ttl, updateAgeOnGet: false });
    this.ips = new LRUCache({ max: MAX_KEYS, ttl, updateAgeOnGet: false });
  }

  /**
   * Admit one login attempt and count it as a failure until `succeeded` says otherwise.
   * @throws AppError rate_limited (429, with retryAfterSeconds) while the account or the IP must wait
   */
  attempt(email: string, ip: string): void {
    const now = this.now();
    const account = email.trim().toLowerCase();
    const waits = [this.accounts.get(account), this.ips.get(ip)].map((e) => (e ? e.lockedUntil - now : 0));
    const wait = Math.max(...waits);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new AppError('rate_limited', `Too many failed logins; retry in ${seconds} s.`, { scope: waits[0] >= waits[1] ? 'account' : 'ip', retry_after_s: seconds }, seconds);
    }
    this.fail(this.accounts, account, this.opts.freeFailures, now);
    this.fail(this.ips, ip, this.opts.ipFreeFailures, now);
  }

  /** The attempt's password was right: the account starts afresh and the IP's count is taken back. */
  succeeded(email: string, ip: string): void {
    this.accounts.delete(email.trim().toLowerCase());
    const e = this.ips.get(ip);
    if (e && e.failures > 0) e.failures--;
  }

  private fail(map: LRUCache<string, Entry>, key: string, free: number, now: number): void {
    const e = map.get(key) ?? { failures: 0, lockedUntil: 0 };
    e.failures++;
    if (e.failures > free) {
      const exp = Math.min(30, e.failures - free - 1);
      e.lockedUntil = now + Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** exp);
    }
    map.set(key, e);
  }
}
