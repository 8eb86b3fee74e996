// One SQLite-backed test server with one docsearch project and a scratch directory for the files a test
// ingests: the set-up several integration tests share (answers-in-context, english-forms, title-cap).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './server.ts';
import { createProject } from './http.ts';

export interface ProjectFixture {
  server: TestServer;
  /** The project's API key. */
  key: string;
  /** A fresh temporary directory, removed by close(). */
  dir: string;
  /** Stop the server and remove the directory. */
  close(): Promise<void>;
}

/**
 * Start a server on SQLite, create a docsearch project and a temporary directory named `<prefix>…`.
 * @throws when the server does not start or the project cannot be created
 */
export async function startProjectFixture(prefix: string): Promise<ProjectFixture> {
  const server = await startTestServer({ backend: 'sqlite' });
  const { apiKey: key } = await createProject(server, { product: 'docsearch' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    server, key, dir,
    close: async () => {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
