// POST /v3/auth/login — console login with e-mail + password (argon2id); returns a 12 h session JWT that
// is used as `Authorization: Bearer <token>` together with X-Project-ID (spec "Authentication").
// Failed logins back off exponentially per account and per client IP (projects/login-throttle.ts):
// 429 rate_limited with Retry-After.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { DEFAULT_ADMISSION } from '../../../internal/config.ts';
import { LoginThrottle } from '../../../projects/login-throttle.ts';

const LoginBodySchema = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
}, { additionalProperties: false });

const LoginResponseSchema = Type.Object({
  token: Type.String({ description: 'Session JWT; send as Bearer token with X-Project-ID' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
  account_id: Type.String(),
});

export async function registerLoginRoute(app: FastifyInstance, services: Services): Promise<void> {
  const a = services.config.admission ?? DEFAULT_ADMISSION;
  const throttle = new LoginThrottle({ freeFailures: a.loginFreeFailures, ipFreeFailures: a.loginIpFreeFailures, baseMs: a.loginBackoffBaseMs, maxMs: a.loginBackoffMaxMs });
  app.withTypeProvider<TypeBoxTypeProvider>().post('/auth/login', {
    schema: {
      tags: ['auth'],
      operationId: 'login', summary: 'Log in and obtain a session token',
      security: [],
      body: LoginBodySchema,
      response: { 200: LoginResponseSchema, 400: Type.Ref(ErrorBodySchema), 401: Type.Ref(ErrorBodySchema), 429: Type.Ref(ErrorBodySchema) },
    },
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { email, password } = request.body;
    throttle.attempt(email, request.ip);
    const result = await services.projects.login(email, password);
    throttle.succeeded(email, request.ip);
    return result;
  });
}
