// Entry point of the integration-test helpers.
export { startTestServer, BACKENDS, repoRoot, type Backend, type TestServer } from './server.ts';
export { request, createProject, type ApiResponse, type ApiOptions } from './http.ts';
export { createTestDatabase, testPostgresAdminUrl, findPgBinDir } from './postgres.ts';
export { openTestControlPlane } from './control-plane.ts';
