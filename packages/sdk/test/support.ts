// Shared set-up of the client packages' integration tests: the real service started in-process by the
// repository's test harness (test/helpers), a docsearch project created through the SDK, and the
// evaluation PDFs in ../shared/data (never copied into the repository).
import path from 'node:path';
import { startTestServer, repoRoot, type TestServer } from '../../../test/helpers/index.ts';
import { DocsearchClient } from '../src/index.ts';

export { startTestServer, type TestServer };

/** A file of the shared evaluation corpus, e.g. sharedPdf('layout-parser-paper-with-table.pdf'). */
export const sharedPdf = (name: string): string => path.resolve(repoRoot, '../shared/data/docs/pdf', name);

/** The PDF the client tests ingest, and a query its text answers. */
export const PAPER = {
  file: sharedPdf('layout-parser-paper-with-table.pdf'),
  query: 'which layout detection models are available',
  expect: /layout/i,
};

/**
 * A new docsearch project on `server`, and a client holding its project key.
 * @returns the project key client, the account-key client and the project's id
 */
export async function newProject(server: TestServer, name = `sdk-${Math.random().toString(36).slice(2, 10)}`): Promise<{
  client: DocsearchClient; account: DocsearchClient; projectId: string; apiKey: string;
}> {
  const account = new DocsearchClient({ baseUrl: server.baseUrl, apiKey: server.accountKey });
  const created = await account.createProject({ name, product: 'docsearch' });
  const client = new DocsearchClient({ baseUrl: server.v3Url, apiKey: created.api_key });
  return { client, account, projectId: created.id, apiKey: created.api_key };
}
