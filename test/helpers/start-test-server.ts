// Compatibility entry point: tests import the server harness from here (see server.ts, http.ts).
export { startTestServer, BACKENDS, repoRoot, type Backend, type TestServer } from './server.ts';
export { createProject, request } from './http.ts';
