// The per-project attribute registry in the control plane (table project_attributes, migration 0003).
// Registration runs in one transaction that first locks the project row (PostgreSQL: SELECT … FOR
// UPDATE; SQLite: the single writer connection serialises transactions), re-reads the registry, re-runs
// the caller's resolution against it, and inserts the new names; the primary key (project_id, name) is
// the backstop. So parallel ingests that first use a name end with one type, and the 64-name cap holds.
// Entries are never removed while the project lives (spec: clearing a value does not free a name).
import { AppError } from '../internal/errors.ts';
import type { ControlPlane } from '../storage/db.ts';
import { nowIso } from '../storage/db.ts';
import { isAttributeType, type AttributeDef, type AttributeType } from './types.ts';

export class AttributeRegistry {
  constructor(private readonly cp: ControlPlane) {}

  /**
   * Every registered attribute of a project, in registration order (then by name).
   * @throws whatever the database throws (callers map it to 503)
   */
  async list(projectId: string): Promise<AttributeDef[]> {
    const rows = await this.cp.db.selectFrom('project_attributes').select(['name', 'type'])
      .where('project_id', '=', projectId).orderBy('created_at').orderBy('name').execute();
    return rows.filter((r) => isAttributeType(r.type)).map((r) => ({ name: r.name, type: r.type as AttributeType }));
  }

  /** name -> type of every registered attribute of a project. */
  async snapshot(projectId: string): Promise<Map<string, AttributeType>> {
    return new Map((await this.list(projectId)).map((d) => [d.name, d.type]));
  }

  /**
   * Register names atomically.
   * @param resolve called inside the transaction with the current registry; returns the names to add
   *   (name -> type) and a result; may throw (AppError) to reject, which rolls back
   * @returns the result of `resolve`
   * @throws AppError attribute_type_conflict if a name ended up stored with another type (lost race
   *   without the lock; not expected), plus whatever `resolve` throws
   */
  async register<T>(projectId: string, resolve: (fixed: Map<string, AttributeType>) => { newNames: Map<string, AttributeType>; result: T }): Promise<T> {
    return this.cp.db.transaction().execute(async (trx) => {
      if (this.cp.dialect === 'postgres') {
        await trx.selectFrom('projects').select('id').where('id', '=', projectId).forUpdate().executeTakeFirst();
      }
      const rows = await trx.selectFrom('project_attributes').select(['name', 'type']).where('project_id', '=', projectId).execute();
      const fixed = new Map(rows.filter((r) => isAttributeType(r.type)).map((r) => [r.name, r.type as AttributeType]));
      const { newNames, result } = resolve(fixed);
      if (newNames.size === 0) return result;
      const now = nowIso();
      await trx.insertInto('project_attributes')
        .values([...newNames].map(([name, type]) => ({ project_id: projectId, name, type, created_at: now })))
        .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
        .execute();
      const stored = await trx.selectFrom('project_attributes').select(['name', 'type'])
        .where('project_id', '=', projectId).where('name', 'in', [...newNames.keys()]).execute();
      for (const r of stored) {
        const wanted = newNames.get(r.name);
        if (wanted !== r.type) {
          throw new AppError('attribute_type_conflict', `Attribute "${r.name}" was just registered with type ${r.type} by a concurrent request; this request needs ${wanted}.`, { name: r.name, type: r.type, declared: wanted });
        }
      }
      return result;
    });
  }

  /** Remove a purged project's registry (project deletion). */
  async purge(projectId: string): Promise<void> {
    await this.cp.db.deleteFrom('project_attributes').where('project_id', '=', projectId).execute();
  }
}
