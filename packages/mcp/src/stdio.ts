// `docsearch-mcp`: the MCP server over stdio for local agents (Claude Desktop, IDEs, …). Configuration
// from the environment: DOCSEARCH_URL (default http://127.0.0.1:8080), DOCSEARCH_API_KEY (required),
// DOCSEARCH_PROJECT_ID (with an account key). stdout carries the protocol; diagnostics go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DocsearchClient } from '@docsearch/sdk';
import { createDocsearchMcpServer } from './server.ts';

/**
 * Serve MCP on stdin/stdout until stdin closes.
 * @returns exit code (2 when DOCSEARCH_API_KEY is missing)
 */
export async function runStdio(env: Record<string, string | undefined> = process.env): Promise<number> {
  if (!env.DOCSEARCH_API_KEY) {
    process.stderr.write('docsearch-mcp: set DOCSEARCH_API_KEY (and DOCSEARCH_URL, default http://127.0.0.1:8080)\n');
    return 2;
  }
  const client = new DocsearchClient({
    baseUrl: env.DOCSEARCH_URL ?? 'http://127.0.0.1:8080',
    apiKey: env.DOCSEARCH_API_KEY,
    projectId: env.DOCSEARCH_PROJECT_ID,
    headers: { 'user-agent': 'docsearch-mcp/0.1' },
  });
  const server = createDocsearchMcpServer(client, { allowFilePaths: true });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => { transport.onclose = () => resolve(); });
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
  return 0;
}
