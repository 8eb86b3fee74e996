// Fixed-window request counters kept in the control plane, so every API process of a deployment that
// shares one PostgreSQL database counts against one budget per key (with in-process counters,
// N processes behind a load balancer allowed N times the configured rate). One upsert per hit, atomic on
// both backends (ON CONFLICT DO UPDATE locks the row; SET expressions read the old row). Expired rows
// are deleted at most once a minute.
import { sql } from 'kysely';
import type { ControlPlane } from './db.ts';

/** State of one key after a hit. */
export interface RateHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** When the current window ends, epoch ms. */
  resetAtMs: number;
}

/** Expired counter rows are deleted at most this often: once per window (one minute). */
const SWEEP_EVERY_MS = 60_000;

export class RateCounters {
  private lastSweep = 0;

  constructor(private readonly cp: ControlPlane, private readonly now: () => number = Date.now) {}

  /**
   * Count one hit of `key` in its fixed window of `windowMs` (a window starts at the first hit after the
   * previous one ended). Clocks of the processes sharing the database should agree to a second or so.
   * @returns the hits so far in the window and its end
   */
  async hit(key: string, windowMs: number): Promise<RateHit> {
    const now = this.now();
    const end = now + windowMs;
    const r = await sql<{ hits: number; expires_at_ms: number }>`
      insert into rate_limits (key, window_start_ms, expires_at_ms, hits) values (${key}, ${now}, ${end}, 1)
      on conflict (key) do update set
        hits = case when rate_limits.expires_at_ms <= ${now} then 1 else rate_limits.hits + 1 end,
        window_start_ms = case when rate_limits.expires_at_ms <= ${now} then ${now} else rate_limits.window_start_ms end,
        expires_at_ms = case when rate_limits.expires_at_ms <= ${now} then ${end} else rate_limits.expires_at_ms end
      returning hits, expires_at_ms`.execute(this.cp.db);
    this.sweepSometimes(now);
    const row = r.rows[0];
    return { hits: Number(row.hits), resetAtMs: Number(row.expires_at_ms) };
  }

  /** The current state of `key` without counting a hit (hits 0 when no window is open). */
  async peek(key: string): Promise<RateHit> {
    const now = this.now();
    const row = await this.cp.db.selectFrom('rate_limits').select(['hits', 'expires_at_ms']).where('key', '=', key)
      .where('expires_at_ms', '>', now).executeTakeFirst();
    return row ? { hits: Number(row.hits), resetAtMs: Number(row.expires_at_ms) } : { hits: 0, resetAtMs: now };
  }

  private sweepSometimes(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    void this.cp.db.deleteFrom('rate_limits').where('expires_at_ms', '<', now).execute().catch(() => undefined);
  }
}
