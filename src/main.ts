// Process entry point: parse configuration once, build the app, listen, and shut down gracefully on
// SIGINT/SIGTERM (in-flight requests finish, running jobs are released for the next start).
import { loadConfig } from './internal/config.ts';
import { createApp } from './app.ts';
import { buildProbeServer } from './http/probe-server.ts';

async function main(): Promise<void> {
  // Time since the process started: Node's own start-up and loading (and transpiling) the modules.
  const modulesMs = Math.round(performance.now());
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  const app = await createApp(config);
  const log = app.services.logger;
  if (config.role !== 'worker') {
    await app.http.listen({ port: config.port, host: config.host });
  }
  // A worker answers probes (and /metrics) on DOCSEARCH_PROBE_PORT when one is set.
  const probes = config.role === 'worker' && config.probePort !== undefined ? await buildProbeServer(app.services) : undefined;
  await probes?.listen({ port: config.probePort, host: config.host });
  if (config.role !== 'api') app.startWorkers();
  // Recovery after a crash (orphan chunks, interrupted deletes) is invisible to search: it runs behind readiness.
  app.startRecovery();
  log.info({ port: config.port, role: config.role, dataDir: config.dataDir, controlPlane: app.services.cp.dialect,
    modules_ms: modulesMs, startup_ms: Math.round(performance.now()) }, 'docsearch started');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await probes?.close();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  // Start-up checks (e.g. an unreachable bucket) throw "config: …" errors: the message says it all.
  if (err instanceof Error && err.message.startsWith('config:')) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
