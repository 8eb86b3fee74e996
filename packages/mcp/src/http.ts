// Streamable HTTP for a service that mounts the tool set (docsearch's own /mcp): stateless, one MCP
// server and transport per POST, built around a client that carries the caller's credentials — so the
// tools can do exactly what the caller's key can do through the API, and nothing is kept between calls.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { DocsearchClient } from '@docsearch/sdk';
import { createDocsearchMcpServer } from './server.ts';

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
