// Optional per-account quotas for bucket ingestion (DESIGN.md §5; both off by default): bytes fetched
// from buckets per UTC calendar month (-> paused_egress_quota_exhausted) and files ingested from buckets
// per month, the "credits" (-> paused_credit_exhausted). Usage is counted in the same transaction that
// queues a file, so it is exact across restarts; a paused task resumes once the month rolls over or the
// operator raises the quota.
import { sql } from 'kysely';
import type { ControlPlane } from '../storage/db.ts';
import type { Trx } from './task-store.ts';
import type { PauseReason } from './task-states.ts';

export interface QuotaConfig {
  /** 0 = unlimited. */
  egressQuotaBytes: number;
  /** 0 = unlimited. */
  fileCredits: number;
}

/** The usage period of a moment: 'YYYY-MM' (UTC). */
export function usageMonth(at = new Date()): string {
  return at.toISOString().slice(0, 7);
}

/** Add fetched bytes / queued files to the account's usage of this month (inside the queuing transaction). */
export async function addUsage(trx: Trx, accountId: string, bytes: number, files: number): Promise<void> {
  await trx.insertInto('bucket_usage').values({ account_id: accountId, month: usageMonth(), bytes, files })
    .onConflict((oc) => oc.columns(['account_id', 'month']).doUpdateSet({
      bytes: sql`bucket_usage.bytes + ${bytes}`,
      files: sql`bucket_usage.files + ${files}`,
    })).execute();
}

/** This month's usage of an account. */
export async function getUsage(cp: ControlPlane, accountId: string): Promise<{ bytes: number; files: number }> {
  const row = await cp.db.selectFrom('bucket_usage').select(['bytes', 'files']).where('account_id', '=', accountId)
    .where('month', '=', usageMonth()).executeTakeFirst();
  return { bytes: Number(row?.bytes ?? 0), files: Number(row?.files ?? 0) };
}

/**
 * Would fetching the next file exceed a quota?
 * @param next bytes and files about to be fetched, including those already in flight (not yet counted)
 * @returns the pause reason ('egress' | 'credit'), or null when within quota
 */
export async function quotaExceeded(cp: ControlPlane, accountId: string, q: QuotaConfig, next: { bytes: number; files: number }): Promise<PauseReason | null> {
  if (!q.egressQuotaBytes && !q.fileCredits) return null;
  const u = await getUsage(cp, accountId);
  if (q.fileCredits && u.files + next.files > q.fileCredits) return 'credit';
  if (q.egressQuotaBytes && u.bytes + next.bytes > q.egressQuotaBytes) return 'egress';
  return null;
}
