// A small local Google Cloud Storage JSON-API server for bucket-ingest tests, implementing exactly the
// calls the real @google-cloud/storage client makes for us: bucket metadata, paginated object listing
// (prefix, pageToken, maxResults; optionally with empty pages in between, as GCS may return), object
// metadata and media download (with the x-goog-hash crc32c/md5 the client validates). Every request must carry
// a self-signed service-account JWT (RS256, signed with the private key of the service-account JSON this
// helper generates); a token signed by any other key is answered 401, like GCS.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify } from 'jose';
import { CRC32C } from '@google-cloud/storage';

export interface ServiceAccountJson {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

export interface GcsTestServer {
  /** Origin to use as the client's apiEndpoint, e.g. http://127.0.0.1:40123 */
  endpoint: string;
  /** A service account whose key the server trusts. */
  serviceAccount: ServiceAccountJson;
  /** A well-formed service account with a different key (the server answers 401). */
  untrustedServiceAccount: ServiceAccountJson;
  /** Request log ("GET /storage/v1/b/x/o?…"). */
  requests: string[];
  putObjects(bucket: string, objects: Array<[string, Buffer | string]>): void;
  close(): Promise<void>;
}

/** Generate a service-account JSON with a fresh 2048-bit RSA key. */
export function makeServiceAccount(projectId = 'test-project'): { json: ServiceAccountJson; publicKeyPem: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const id = crypto.randomBytes(8).toString('hex');
  return {
    json: {
      type: 'service_account', project_id: projectId, private_key_id: crypto.randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: `ingest-${id}@${projectId}.iam.gserviceaccount.com`, client_id: String(BigInt('0x' + id)),
      token_uri: 'https://oauth2.googleapis.com/token',
    },
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Base64 CRC32C of `data`, as GCS reports it. */
function crc32c(data: Buffer): string {
  const c = new CRC32C();
  c.update(data);
  return c.toString();
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

function gcsError(res: http.ServerResponse, status: number, reason: string, message: string): void {
  sendJson(res, status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } });
}

/**
 * Start the server on 127.0.0.1.
 * @param opts.emptyPages insert an empty page (no items, a nextPageToken) before every real page
 * @param opts.location   bucket location reported by bucket metadata (default US-EAST1)
 */
export async function startGcsServer(opts: { emptyPages?: boolean; location?: string } = {}): Promise<GcsTestServer> {
  const trusted = makeServiceAccount();
  const untrusted = makeServiceAccount();
  const publicKey = await importSPKI(trusted.publicKeyPem, 'RS256');
  const buckets = new Map<string, Map<string, { data: Buffer; updated: string }>>();
  const requests: string[] = [];

  const objectResource = (bucket: string, name: string, o: { data: Buffer; updated: string }) => ({
    kind: 'storage#object', id: `${bucket}/${name}/1`, name, bucket, generation: '1', metageneration: '1',
    contentType: 'application/octet-stream', size: String(o.data.length), updated: o.updated, timeCreated: o.updated,
    md5Hash: crypto.createHash('md5').update(o.data).digest('base64'), crc32c: crc32c(o.data),
  });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    requests.push(`${req.method} ${req.url}`);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return gcsError(res, 401, 'required', 'Anonymous caller does not have storage.objects.list access.');
    try {
      await jwtVerify(token, publicKey, { issuer: trusted.json.client_email });
    } catch {
      return gcsError(res, 401, 'authError', 'Invalid Credentials');
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/(?:download\/)?storage\/v1\/b\/([^/]+)(?:\/o(?:\/(.+))?)?$/.exec(url.pathname);
    if (!m || req.method !== 'GET') return gcsError(res, 404, 'notFound', 'Not Found');
    const bucket = decodeURIComponent(m[1]);
    const objects = buckets.get(bucket);
    if (!objects) return gcsError(res, 404, 'notFound', 'The specified bucket does not exist.');
    const isList = url.pathname.endsWith('/o');
    if (!isList && m[2] === undefined) {
      return sendJson(res, 200, { kind: 'storage#bucket', id: bucket, name: bucket, location: opts.location ?? 'US-EAST1', storageClass: 'STANDARD' });
    }
    if (isList) {
      const prefix = url.searchParams.get('prefix') ?? '';
      const max = Math.min(1000, Number(url.searchParams.get('maxResults') ?? 1000) || 1000);
      let pageToken = url.searchParams.get('pageToken') ?? '';
      let empty = false;
      if (opts.emptyPages) {
        if (!pageToken.startsWith('real:')) empty = true; // first visit of each page position: an empty page
        else pageToken = pageToken.slice(5);
      }
      const after = pageToken ? Buffer.from(pageToken, 'base64url').toString() : '';
      if (empty) return sendJson(res, 200, { kind: 'storage#objects', nextPageToken: 'real:' + (pageToken || '') });
      const names = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
      const page = names.slice(0, max);
      const body: Record<string, unknown> = { kind: 'storage#objects', items: page.map((n) => objectResource(bucket, n, objects.get(n)!)) };
      if (names.length > max) body.nextPageToken = Buffer.from(page[page.length - 1]).toString('base64url');
      return sendJson(res, 200, body);
    }
    const name = decodeURIComponent(m[2]!);
    const o = objects.get(name);
    if (!o) return gcsError(res, 404, 'notFound', `No such object: ${bucket}/${name}`);
    if (url.searchParams.get('alt') === 'media') {
      res.writeHead(200, {
        'content-type': 'application/octet-stream', 'content-length': String(o.data.length),
        'x-goog-hash': `crc32c=${crc32c(o.data)},md5=${crypto.createHash('md5').update(o.data).digest('base64')}`,
        'x-goog-stored-content-encoding': 'identity', 'x-goog-generation': '1',
      });
      res.end(o.data);
      return;
    }
    return sendJson(res, 200, objectResource(bucket, name, o));
  };

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { handle(req, res).catch((err) => gcsError(res, 500, 'backendError', String(err))); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint, serviceAccount: trusted.json, untrustedServiceAccount: untrusted.json, requests,
    putObjects(bucket, list) {
      let b = buckets.get(bucket);
      if (!b) buckets.set(bucket, (b = new Map()));
      for (const [k, v] of list) b.set(k, { data: Buffer.isBuffer(v) ? v : Buffer.from(v), updated: new Date().toISOString() });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
