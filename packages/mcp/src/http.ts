// Streamable HTTP for a service that mounts the tool set (docsearch's own /mcp): stateless, one MCP
// server and transport per POST, built around a client that carries the caller's credentials — so the
// tools can do exactly what the caller's key can do through the API, and nothing is kept between calls.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { DocsearchClient } from '@docsearch/sdk';
import { createDocsearchMcpServer } from './server.ts';

/** Path, under the endpoint's origin, of its OAuth 2.0 Protected Resource Metadata (RFC 9728). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The Protected Resource Metadata (RFC 9728) of an MCP endpoint that takes bearer API keys: the
 * resource, the Authorization header as the one way to present a token, and no authorization server
 * (keys are issued by the service itself, not through OAuth), so an MCP host that follows the MCP
 * authorization spec learns that it should send a configured bearer key.
 * @param resource the endpoint's URL, e.g. https://search.example.org/mcp
 */
export function protectedResourceMetadata(resource: string): OAuthProtectedResourceMetadata {
  return {
    resource,
    bearer_methods_supported: ['header'],
    resource_name: 'docsearch MCP server (Authorization: Bearer <docsearch API key>)',
  };
}

/**
 * The `WWW-Authenticate` value of a 401 from the endpoint (RFC 6750 Bearer challenge with RFC 9728's
 * resource_metadata parameter); `error="invalid_token"` when a token was sent and refused.
 */
export function bearerChallenge(resourceMetadataUrl: string, tokenSent: boolean): string {
  return `Bearer resource_metadata="${resourceMetadataUrl}"${tokenSent ? ', error="invalid_token"' : ''}`;
}

/**
 * Answer one Streamable HTTP request (POST with a JSON-RPC message or batch) with the docsearch tools.
 * GET (server-initiated stream) and DELETE (session end) are answered 405 by the transport in stateless mode.
 * @param body the request body already parsed as JSON (or undefined to let the transport read it)
 */
export async function handleMcpHttpRequest(req: IncomingMessage, res: ServerResponse, body: unknown, client: DocsearchClient): Promise<void> {
  const server = createDocsearchMcpServer(client, { allowFilePaths: false });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
