// /mcp — the docsearch MCP tool set (packages/mcp) over Streamable HTTP, stateless, with the same bearer
// credentials as the API: the caller is authenticated and its project resolved here (401/403 like any
// /docsearch endpoint), then the tools run through an SDK client that calls this very service over
// loopback with the caller's own token and project — so a tool can do exactly what the key can do
// through the public API, and MCP adds no second path to the domain.
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { DocsearchClient } from '@docsearch/sdk';
import { handleMcpHttpRequest } from '@docsearch/mcp';
import type { Services } from '../../services.ts';
import { AppError } from '../../internal/errors.ts';
import { resolveProjectScope } from '../plugins/docsearch-scope.ts';

/** http://host:port this server listens on, as reachable from itself (wildcard binds → loopback). */
function selfOrigin(app: FastifyInstance): string {
  const addr = app.server.address() as AddressInfo | string | null;
  if (!addr || typeof addr === 'string') throw new AppError('backend_unavailable', 'The MCP endpoint needs the server to listen on a TCP port.');
  const wildcard = addr.address === '0.0.0.0' || addr.address === '::';
  const host = wildcard ? '127.0.0.1' : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}

export async function registerMcpRoute(app: FastifyInstance, services: Services): Promise<void> {
  // A tool call may wait on a job for minutes: shutting down ends those responses instead of waiting.
  const open = new Set<ServerResponse>();
  app.addHook('preClose', async () => {
    for (const res of open) res.destroy();
  });
  // Stateless: no server-initiated stream and no session to end, so GET and DELETE are 405 (MCP
  // Streamable HTTP allows this) — after authentication, like every other answer here.
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    schema: { hide: true },
    handler: async (request, reply): Promise<never> => {
      await resolveProjectScope(services.auth, request, true);
      reply.header('allow', 'POST');
      throw new AppError('method_not_allowed', 'This MCP endpoint is stateless: POST JSON-RPC messages.');
    },
  });
  app.post('/mcp', {
    // ingest's content_base64 carries a whole file: base64 is 4/3 of the upload limit, plus the envelope.
    bodyLimit: Math.ceil(services.config.maxUploadBytes * 1.34) + 64 * 1024,
    schema: { hide: true },
  }, async (request, reply) => {
    const project = await resolveProjectScope(services.auth, request, true);
    const token = request.headers.authorization!.replace(/^Bearer\s+/i, '');
    const client = new DocsearchClient({
      baseUrl: selfOrigin(app), apiKey: token, projectId: project.projectId,
      headers: { 'user-agent': 'docsearch-mcp-http/0.1', 'x-request-id': request.id },
    });
    reply.hijack();
    open.add(reply.raw);
    reply.raw.once('close', () => open.delete(reply.raw));
    await handleMcpHttpRequest(request.raw, reply.raw, request.body, client);
  });
}
