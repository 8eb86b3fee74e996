// Requests to the real S3-compatible store on behalf of the object-cache proxy (object-cache-proxy.ts):
// LanceDB signs its requests for the proxy with a per-process key, so each request is signed again here,
// with AWS Signature V4 and the deployment's credentials (static keys or the AWS SDK's default chain),
// for the configured endpoint in path or virtual-hosted style. Bodies are streamed, never buffered: a
// PUT keeps the payload hash LanceDB computed (x-amz-content-sha256), which the new signature covers.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { SignatureV4 } from '@smithy/signature-v4';
import { Agent, request, type Dispatcher } from 'undici';
import type { S3Settings } from '../internal/storage-config.ts';
import { createS3Client } from './s3-blob-store.ts';

/** Node's SHA-256 / HMAC-SHA256 in the shape @smithy/signature-v4 expects. */
export class NodeSha256 {
  private h!: crypto.Hash | crypto.Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.reset();
  }
  reset(): void {
    const s = this.secret;
    this.h = s ? crypto.createHmac('sha256', typeof s === 'string' ? s : Buffer.from(ArrayBuffer.isView(s) ? s.buffer.slice(s.byteOffset, s.byteOffset + s.byteLength) : s)) : crypto.createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(typeof data === 'string' ? data : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

/** Request headers that are the proxy hop's own (or re-created by the new signature) and are not forwarded. */
const HOP_HEADERS = new Set(['host', 'authorization', 'x-amz-date', 'x-amz-security-token', 'connection', 'keep-alive', 'transfer-encoding', 'expect']);
/** Connections kept open to the store: a search's reads run in parallel, and LanceDB's reader issues many at once. */
const UPSTREAM_CONNECTIONS = 64;

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export class S3Upstream {
  private readonly signer: SignatureV4;
  private readonly base: URL;
  private readonly agent = new Agent({ connections: UPSTREAM_CONNECTIONS, keepAliveTimeout: 30_000 });
  private readonly client;

  /** @param settings endpoint (undefined = AWS S3 of the region), region, credentials, path style */
  constructor(private readonly settings: S3Settings) {
    this.client = createS3Client(settings);
    this.base = new URL(settings.endpoint ?? `https://s3.${settings.region}.amazonaws.com`);
    this.signer = new SignatureV4({
      credentials: this.client.config.credentials, region: settings.region, service: 's3', sha256: NodeSha256, uriEscapePath: false,
    });
  }

  /**
   * Send one request to the store.
   * @param method   HTTP method
   * @param pathname path-style `/bucket/key…`, percent-encoded as the client sent it
   * @param search   query string with its `?`, or ''
   * @param headers  the client's headers (hop headers and the old signature are dropped)
   * @param body     request body to stream, if any
   * @throws what undici throws on connection failures
   */
  async send(method: string, pathname: string, search: string, headers: Record<string, string | string[] | undefined>, body?: Readable): Promise<UpstreamResponse> {
    const { host, path } = this.target(pathname);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (v === undefined || HOP_HEADERS.has(k)) continue;
      out[k] = Array.isArray(v) ? v.join(',') : v;
    }
    out.host = host;
    if (!out['x-amz-content-sha256']) out['x-amz-content-sha256'] = body ? 'UNSIGNED-PAYLOAD' : crypto.createHash('sha256').digest('hex');
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(search)) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    const signed = await this.signer.sign({ method, protocol: this.base.protocol, hostname: host.split(':')[0], path, query, headers: out });
    const res = await request(`${this.base.protocol}//${host}${path}${search}`, {
      method: method as Dispatcher.HttpMethod, headers: signed.headers, body: body ?? null, dispatcher: this.agent,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }

  async close(): Promise<void> {
    this.client.destroy();
    await this.agent.close();
  }

  /** Path-style `/bucket/key` -> the store's host and path (virtual-hosted style puts the bucket in the host). */
  private target(pathname: string): { host: string; path: string } {
    if (this.settings.forcePathStyle) return { host: this.base.host, path: pathname };
    const m = /^\/([^/]+)(\/.*)?$/.exec(pathname);
    if (!m) return { host: this.base.host, path: pathname };
    return { host: `${m[1]}.${this.base.host}`, path: m[2] ?? '/' };
  }
}
