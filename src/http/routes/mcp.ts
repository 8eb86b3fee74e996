// /mcp — the docsearch MCP tool set (packages/mcp) over Streamable HTTP, stateless, with the same bearer
// credentials as the API: the caller is authenticated and its project resolved here (401/403 like any
// /docsearch endpoint), then the tools run through an SDK client that calls this very service over
// loopback with the caller's own token and project — so a tool can do exactly what the key can do
// through the public API, and MCP adds no second path to the domain. A 401 carries a Bearer challenge
// naming the endpoint's Protected Resource Metadata (RFC 9728), served under /.well-known, as the MCP
// authorization spec asks; bearer API keys stay the way to authenticate.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { DocsearchClient } from '@docsearch/sdk';
import { bearerChallenge, handleMcpHttpRequest, PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata } from '@docsearch/mcp';
import type { Services } from '../../services.ts';
import { AppError, isAppError } from '../../internal/errors.ts';
import type { ProjectContext } from '../../projects/types.ts';
import { resolveProjectScope } from '../plugins/docsearch-scope.ts';

/** http://host:port this server listens on, as reachable from itself (wildcard binds → loopback). */
function selfOrigin(app: FastifyInstance): string {
  const addr = app.server.address() as AddressInfo | string | null;
  if (!addr || typeof addr === 'string') throw new AppError('backend_unavailable', 'The MCP endpoint needs the server to listen on a TCP port.');
  const wildcard = addr.address === '0.0.0.0' || addr.address === '::';
  const host = wildcard ? '127.0.0.1' : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}

/** The origin the caller addressed (scheme and Host), for URLs the caller must be able to follow. */
function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export async function registerMcpRoute(app: FastifyInstance, services: Services): Promise<void> {
  // RFC 9728 §3: the metadata of https://host/mcp is at /.well-known/oauth-protected-resource/mcp; the
  // bare path serves the same document (the 401 challenge names it, and hosts that probe the origin find it).
  for (const url of [PROTECTED_RESOURCE_METADATA_PATH, `${PROTECTED_RESOURCE_METADATA_PATH}/mcp`]) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return protectedResourceMetadata(`${requestOrigin(request)}/mcp`);
    });
  }

  /** Authenticate an MCP request; a 401 gets the Bearer challenge that points at the metadata. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<ProjectContext> => {
    try {
      return await resolveProjectScope(services.auth, request, true);
    } catch (err) {
      if (isAppError(err) && err.status === 401) {
        reply.header('www-authenticate', bearerChallenge(`${requestOrigin(request)}${PROTECTED_RESOURCE_METADATA_PATH}`, request.headers.authorization !== undefined));
      }
      throw err;
    }
  };

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
      await authenticate(request, reply);
      reply.header('allow', 'POST');
      throw new AppError('method_not_allowed', 'This MCP endpoint is stateless: POST JSON-RPC messages.');
    },
  });
  app.post('/mcp', {
    // ingest's content_base64 carries a whole file: base64 is 4/3 of the upload limit, plus the envelope.
    bodyLimit: Math.ceil(services.config.maxUploadBytes * 1.34) + 64 * 1024,
    schema: { hide: true },
  }, async (request, reply) => {
    const project = await authenticate(request, reply);
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
