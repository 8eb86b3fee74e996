// The crash harness's local HTTP peer: serves real files from ../shared/data/docs for X-Remote-URL
// ingests (`/files/<path>`, 404 for unknown names) and receives completion webhooks at `/hook`,
// remembering every delivery (raw body and headers) per job for the at-least-once / one-event checks.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

export interface Delivery { headers: Record<string, string>; body: string; receivedAt: number }

export interface CrashReceiver {
  url(p: string): string;
  /** Deliveries received for a job id (from the event's data.job_id). */
  deliveries(jobId: string): Delivery[];
  eventCount(): number;
  close(): Promise<void>;
}

export async function startCrashReceiver(docsDir: string): Promise<CrashReceiver> {
  const byJob = new Map<string, Delivery[]>();
  let count = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/files/')) {
      const rel = decodeURIComponent(req.url.slice('/files/'.length));
      const file = path.resolve(docsDir, rel);
      if (!file.startsWith(docsDir + path.sep) || !fs.existsSync(file)) return void res.writeHead(404).end('no such file');
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(file));
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const jobId = (JSON.parse(body) as { data: { job_id: string } }).data.job_id;
        const list = byJob.get(jobId) ?? [];
        list.push({ headers: req.headers as Record<string, string>, body, receivedAt: Date.now() });
        byJob.set(jobId, list);
        count++;
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    deliveries: (jobId) => byJob.get(jobId) ?? [],
    eventCount: () => count,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
