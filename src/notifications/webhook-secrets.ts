// Per-project webhook signing secrets. A project's secret is created on first use (first completion
// event or first GET /v3/webhooks/secret), stored in the control plane, returned to the project's own
// credentials only, and can be rotated; deliveries are signed with the secret current at send time.
import { nowIso, type ControlPlane } from '../storage/db.ts';
import { isUniqueViolation } from '../jobs/queue-support.ts';
import { newWebhookSecret } from './webhook-signature.ts';

export interface WebhookSecretView {
  secret: string;
  created_at: string;
}

export class WebhookSecrets {
  constructor(private readonly cp: ControlPlane) {}

  /** The project's secret, creating it when it has none yet. */
  async get(projectId: string): Promise<WebhookSecretView> {
    const row = await this.cp.db.selectFrom('webhook_secrets').select(['secret', 'created_at'])
      .where('project_id', '=', projectId).executeTakeFirst();
    if (row) return row;
    const created = { project_id: projectId, secret: newWebhookSecret(), created_at: nowIso() };
    try {
      await this.cp.db.insertInto('webhook_secrets').values(created).execute();
      return { secret: created.secret, created_at: created.created_at };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return this.get(projectId); // created concurrently
    }
  }

  /** Replace the project's secret; events sent from now on are signed with the new one. */
  async rotate(projectId: string): Promise<WebhookSecretView> {
    const next = { secret: newWebhookSecret(), created_at: nowIso() };
    const r = await this.cp.db.updateTable('webhook_secrets').set(next).where('project_id', '=', projectId).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) {
      await this.get(projectId);
      return this.rotate(projectId);
    }
    return next;
  }

  /** Remove a project's secret (project deletion). */
  async delete(projectId: string): Promise<void> {
    await this.cp.db.deleteFrom('webhook_secrets').where('project_id', '=', projectId).execute();
  }
}
