// The docsearch MCP server: one McpServer with the whole tool set, working only through a
// @docsearch/sdk client. The stdio bin and the service's /mcp endpoint both build it here, each with
// its own client (the stdio one from the environment, the HTTP one with the caller's own key).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { DocsearchClient } from '@docsearch/sdk';
import { registerDocumentTools } from './tools/documents.ts';
import { registerIngestTools } from './tools/ingest.ts';
import { registerSearchTools } from './tools/search.ts';
import { registerEvaluateTool } from './tools/evaluate.ts';

export const SERVER_INFO = { name: 'docsearch', version: '0.1.0' } as const;

const INSTRUCTIONS = 'docsearch holds a project\'s documents and answers questions from them. Typical flow: '
  + 'list_documents (or ingest a new file/URL and wait for its doc_id), then search with a natural-language query and answer from '
  + 'the returned context, citing its titles and pages. Use search_in_doc for one document, list_attributes before filtering on attributes, '
  + 'evaluate_search to measure search on labelled questions.';

export interface DocsearchMcpOptions {
  /** Let ingest read local file paths (stdio: yes; the service's HTTP endpoint: no). */
  allowFilePaths: boolean;
}

/** A new MCP server exposing docsearch through `client`. */
export function createDocsearchMcpServer(client: DocsearchClient, opts: DocsearchMcpOptions): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
  registerIngestTools(server, client, opts);
  registerSearchTools(server, client);
  registerDocumentTools(server, client);
  registerEvaluateTool(server, client);
  return server;
}
