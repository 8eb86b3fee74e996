// Route tree of console authentication (POST /v3/auth/login).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { registerLoginRoute } from './login.ts';

export async function registerAuthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await registerLoginRoute(app, services);
}
