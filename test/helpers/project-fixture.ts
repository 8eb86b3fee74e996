// One test server (SQLite unless asked otherwise) with one docsearch project and a scratch directory for the files a test
// ingests: the set-up several integration tests share (answers-in-context, english-forms, title-cap).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type Backend, type TestServer } from './server.ts';
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
 * Start a server (on SQLite unless `backend` says otherwise), create a docsearch project and a temporary
 * directory named `<prefix>…`.
 * @throws when the server does not start or the project cannot be created
 */
export async function startProjectFixture(prefix: string, backend: Backend = 'sqlite'): Promise<ProjectFixture> {
  const server = await startTestServer({ backend });
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
