// Helpers of the job tests: a streaming Server-Sent-Events reader over real HTTP, a local
// "remote file" server whose responses can be held back (to keep a job in processing), and an nginx
// reverse proxy in a temp dir (for the SSE-through-a-proxy check; Debian package nginx-light).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface SseEvent { event?: string; id?: string; data?: string; comment?: string; at: number }

/**
 * Open an SSE stream with fetch and collect its events as they arrive.
 * @returns status, headers, `events` (growing), `next(pred)` resolving at the first matching event, `ended`
 */
export async function openSse(url: string, headers: Record<string, string>) {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const events: SseEvent[] = [];
  const waiters: Array<{ pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  const push = (e: SseEvent) => {
    events.push(e);
    for (const w of [...waiters]) if (w.pred(e)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(e); }
  };
  const ended = (async () => {
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const e: SseEvent = { at: Date.now() };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) e.comment = line.slice(1).trim();
            else {
              const [k, ...rest] = line.split(':');
              const v = rest.join(':').replace(/^ /, '');
              if (k === 'event' || k === 'id' || k === 'data') e[k] = v;
            }
          }
          push(e);
        }
      }
    } catch { /* aborted */ }
  })();
  return {
    status: res.status, headers: res.headers, events, ended,
    next(pred: (e: SseEvent) => boolean, timeoutMs = 20_000): Promise<SseEvent> {
      const found = events.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching SSE event within ${timeoutMs} ms; got ${JSON.stringify(events)}`)), timeoutMs);
        waiters.push({ pred, resolve: (e) => { clearTimeout(t); resolve(e); } });
      });
    },
    close: () => ac.abort(),
  };
}

/** Job-status events of a stream, parsed. */
export function statusEvents(events: SseEvent[]): Array<{ id: number; status: string; [k: string]: unknown }> {
  return events.filter((e) => e.event === 'job_status').map((e) => ({ id: Number(e.id), ...JSON.parse(e.data!) }));
}

/** A local HTTP server serving `body` at any path; `hold()` makes responses wait until `release()`. */
export async function startFileServer(body: Buffer) {
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => undefined;
  let aborted = 0;
  const server = http.createServer(async (req, res) => {
    req.on('close', () => { if (!res.writableEnded) aborted++; });
    await gate;
    if (res.destroyed) return;
    if (req.url?.includes('missing')) { res.writeHead(404).end('not here'); return; }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: (name: string) => `http://127.0.0.1:${port}/${name}`,
    hold() { gate = new Promise((r) => (open = r)); },
    release() { open(); },
    get aborted() { return aborted; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));

/** Start nginx (default proxy buffering on) in front of `upstream` (an origin); returns its origin. */
export async function startNginx(upstream: string): Promise<{ origin: string; close(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-nginx-'));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const conf = `worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
daemon off;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass ${upstream}; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(NGINX!, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((r) => { const s = net.connect(port, '127.0.0.1', () => { s.end(); r(true); }); s.on('error', () => r(false)); });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin,
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => { if (child.exitCode !== null) r(undefined); else child.once('exit', r); });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
