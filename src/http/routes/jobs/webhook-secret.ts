// GET /webhooks/secret and POST /webhooks/secret/rotate — the project's completion-webhook signing
// secret (created on first use), for verifying `webhook-signature` (docs/webhooks.md).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { WebhookSecretSchema } from './schemas.ts';

export async function registerWebhookSecretRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/webhooks/secret', {
    schema: {
      tags: ['webhooks'], operationId: 'getWebhookSecret',
      summary: 'The project\'s webhook signing secret', response: { 200: WebhookSecretSchema, 401: ErrorBodySchema },
    },
  }, async (request) => services.webhookSecrets.get(request.project.projectId));
  app.post('/webhooks/secret/rotate', {
    schema: {
      tags: ['webhooks'], operationId: 'rotateWebhookSecret',
      summary: 'Replace the project\'s webhook signing secret', response: { 200: WebhookSecretSchema, 401: ErrorBodySchema },
    },
  }, async (request) => services.webhookSecrets.rotate(request.project.projectId));
}
