// The web console: static files from <repo>/console (plain HTML, CSS and ES modules, no
// build step) served at /console/ with @fastify/static. The browser code speaks to the service only
// through the public /v3 API, so this file adds no API of its own; a strict Content-Security-Policy keeps
// the pages to their own scripts and this origin.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Folder of the console's files: `console/` beside `src/`. */
export const CONSOLE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../console');

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
  + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/**
 * Serve the console at /console/ (index.html for the folder) and redirect /console to /console/.
 * Registered in its own encapsulated context (decorateReply false) so it cannot clash with other
 * plugins that use @fastify/static; its routes are hidden from the OpenAPI document.
 */
export async function registerConsoleRoutes(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root: CONSOLE_ROOT,
      prefix: '/console/',
      decorateReply: false,
      index: 'index.html',
      cacheControl: true,
      maxAge: 0,
      setHeaders: (reply) => {
        void reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
      },
    });
    scope.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 301));
  });
}
