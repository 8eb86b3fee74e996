// @docsearch/mcp — the docsearch tool set as an MCP server: stdio (bin docsearch-mcp) or mounted over
// Streamable HTTP by the service.
export { createDocsearchMcpServer, SERVER_INFO, type DocsearchMcpOptions } from './server.ts';
export { bearerChallenge, handleMcpHttpRequest, protectedResourceMetadata, PROTECTED_RESOURCE_METADATA_PATH } from './http.ts';
export { runStdio } from './stdio.ts';
export { FILTER_GRAMMAR } from './grammar.ts';
