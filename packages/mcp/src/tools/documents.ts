// Document and attribute tools: list_documents, get_document, delete_document, list_attributes.
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { DocsearchClient } from '@docsearch/sdk';
import { guarded, ok } from '../results.ts';

/** Register the document and attribute tools on `server`, answering through `client`. */
export function registerDocumentTools(server: McpServer, client: DocsearchClient): void {
  server.registerTool('list_documents', {
    title: 'List documents',
    description: 'Every document of the project: doc_id, title, filename, language, pages, chunk counts, ingest time. Use a doc_id with get_document, search_in_doc, delete_document or search\'s doc_filter.',
    inputSchema: z.strictObject({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async () => guarded(async () => ok(await client.listDocuments())));

  server.registerTool('get_document', {
    title: 'Describe a document',
    description: 'Metadata of one document (title, language, pages, chunk/image/table counts, source job).',
    inputSchema: z.strictObject({ doc_id: z.string().min(1).describe('The document id') }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ doc_id }) => guarded(async () => ok(await client.getDocument(doc_id))));

  server.registerTool('delete_document', {
    title: 'Delete a document',
    description: 'Permanently remove one document, its vectors and its stored content from the project. Other documents are untouched.',
    inputSchema: z.strictObject({ doc_id: z.string().min(1).describe('The document id') }),
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  }, async ({ doc_id }) => guarded(async () => ok(await client.deleteDocument(doc_id))));

  server.registerTool('list_attributes', {
    title: 'List attribute names',
    description: 'The project\'s typed attribute names and their types (what attribute_filters can use, and which operators apply), and the per-project cap. Reuse an existing name and type when ingesting with attributes.',
    inputSchema: z.strictObject({}),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async () => guarded(async () => ok(await client.listAttributes())));
}
