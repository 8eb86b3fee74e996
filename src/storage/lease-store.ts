// The SQL of the per-namespace writer lease and commit counter (table namespace_leases;
// docs/scale-out.md). Every statement is one row-level compare-and-set, so it is correct on PostgreSQL
// with any number of nodes and on SQLite with several processes. Times are read from the control
// plane's own clock, so nodes whose clocks disagree still agree on when a lease has expired.
import { sql, type RawBuilder } from 'kysely';
import type { ControlPlane } from './db.ts';
import type { IndexBuild } from './index-build.ts';

/** A lease this node holds: the epoch names the acquisition (renewals and releases must quote it). */
export interface HeldLease {
  epoch: number;
  /** Commit counter of the namespace when the lease was acquired. */
  version: number;
}

export class LeaseStore {
  constructor(private readonly cp: ControlPlane) {}

  /** Now on the control plane's clock, ms since 1970 (SQLite: this host's clock). */
  private nowMs(): RawBuilder<number> {
    return this.cp.dialect === 'postgres'
      ? sql<number>`(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`
      : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
  }

  /**
   * Take the lease of `namespace` for `ttlMs` if it is free, expired or already ours, and no other live
   * node is queued for it (wanted_by, valid for `ttlMs` after its last request).
   * @returns the held lease, or undefined when another node holds it or is next in line
   */
  async tryAcquire(namespace: string, owner: string, ttlMs: number): Promise<HeldLease | undefined> {
    const db = this.cp.db;
    const now = this.nowMs();
    await db.insertInto('namespace_leases')
      .values({ namespace, holder: null, epoch: 0, expires_at: 0, wanted_by: null, wanted_at: null, version: 0 })
      .onConflict((oc) => oc.column('namespace').doNothing()).execute();
    const row = await db.updateTable('namespace_leases')
      .set({
        holder: owner,
        epoch: sql`epoch + 1`,
        expires_at: sql`${now} + ${ttlMs}`,
        wanted_by: sql`case when wanted_by = ${owner} then null else wanted_by end`,
      })
      .where('namespace', '=', namespace)
      .where(sql<boolean>`(holder is null or holder = ${owner} or expires_at < ${now})`)
      .where(sql<boolean>`(wanted_by is null or wanted_by = ${owner} or wanted_at < ${now} - ${ttlMs})`)
      .returning(['epoch', 'version']).executeTakeFirst();
    return row ? { epoch: Number(row.epoch), version: Number(row.version) } : undefined;
  }

  /**
   * Queue `owner` as the next holder unless another live node is queued already (first come). A queued
   * node must repeat this at least every `ttlMs` or loses its place.
   */
  async want(namespace: string, owner: string, ttlMs: number): Promise<void> {
    const now = this.nowMs();
    await this.cp.db.updateTable('namespace_leases').set({ wanted_by: owner, wanted_at: now })
      .where('namespace', '=', namespace)
      .where(sql<boolean>`(wanted_by is null or wanted_by = ${owner} or wanted_at < ${now} - ${ttlMs})`)
      .execute();
  }

  /**
   * Extend a held lease to now + `ttlMs`. Succeeds also after expiry as long as nobody took it over
   * (same holder, same epoch): nobody can have committed in between.
   * @returns false when the lease was lost (another node acquired it)
   */
  async renew(namespace: string, owner: string, lease: HeldLease, ttlMs: number): Promise<boolean> {
    const r = await this.cp.db.updateTable('namespace_leases').set({ expires_at: sql`${this.nowMs()} + ${ttlMs}` })
      .where('namespace', '=', namespace).where('holder', '=', owner).where('epoch', '=', lease.epoch)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Give the lease up (no-op when it is no longer ours). */
  async release(namespace: string, owner: string, lease: HeldLease): Promise<void> {
    await this.cp.db.updateTable('namespace_leases').set({ holder: null, expires_at: 0 })
      .where('namespace', '=', namespace).where('holder', '=', owner).where('epoch', '=', lease.epoch)
      .execute();
  }

  /** End the lease of `holder` at acquisition `epoch` now (its process is known to be dead). */
  async expire(namespace: string, holder: string, epoch: number): Promise<void> {
    await this.cp.db.updateTable('namespace_leases').set({ expires_at: 0 })
      .where('namespace', '=', namespace).where('holder', '=', holder).where('epoch', '=', epoch).execute();
  }

  /** Drop `owner` from the head of the queue (its process is known to be dead). */
  async unwant(namespace: string, owner: string): Promise<void> {
    await this.cp.db.updateTable('namespace_leases').set({ wanted_by: null, wanted_at: null })
      .where('namespace', '=', namespace).where('wanted_by', '=', owner).execute();
  }

  /** Count one commit to the namespace's table. @returns the new commit counter */
  async bumpVersion(namespace: string): Promise<number> {
    const row = await this.cp.db.updateTable('namespace_leases').set({ version: sql`version + 1` })
      .where('namespace', '=', namespace).returning('version').executeTakeFirst();
    return Number(row?.version ?? 0);
  }

  /** The commit counter of `namespace` (0 when nothing was ever committed under a lease). */
  async version(namespace: string): Promise<number> {
    const row = await this.cp.db.selectFrom('namespace_leases').select('version').where('namespace', '=', namespace).executeTakeFirst();
    return Number(row?.version ?? 0);
  }

  /** The namespace's serving generation (index-build.ts; 0 when never switched or never leased). */
  async generation(namespace: string): Promise<number> {
    const row = await this.cp.db.selectFrom('namespace_leases').select('generation').where('namespace', '=', namespace).executeTakeFirst();
    return Number(row?.generation ?? 0);
  }

  /** The highest generation the namespace has or is building (its tables are generations 0 to this). */
  async highestGeneration(namespace: string): Promise<number> {
    const row = await this.cp.db.selectFrom('namespace_leases').select(['generation', 'build_generation']).where('namespace', '=', namespace).executeTakeFirst();
    return Math.max(Number(row?.generation ?? 0), Number(row?.build_generation ?? 0));
  }

  /** Note what built the namespace's serving table (a report for /readyz; the table's own record rules). */
  async recordBuild(namespace: string, build: IndexBuild): Promise<void> {
    const json = JSON.stringify(build);
    await this.cp.db.updateTable('namespace_leases').set({ built_with: json })
      .where('namespace', '=', namespace)
      .where((eb) => eb.or([eb('built_with', 'is', null), eb('built_with', '<>', json)]))
      .execute();
  }

  /** Holder, epoch and expiry of a namespace's lease (operations, tests); undefined when never leased. */
  async inspect(namespace: string): Promise<{ holder: string | null; epoch: number; expiresInMs: number; version: number; wantedBy: string | null } | undefined> {
    const row = await this.cp.db.selectFrom('namespace_leases')
      .select(['holder', 'epoch', 'version', 'wanted_by', sql<number>`expires_at - ${this.nowMs()}`.as('left')])
      .where('namespace', '=', namespace).executeTakeFirst();
    return row ? { holder: row.holder, epoch: Number(row.epoch), expiresInMs: Number(row.left), version: Number(row.version), wantedBy: row.wanted_by } : undefined;
  }
}
