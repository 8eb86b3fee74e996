// BucketSource over Google Cloud Storage (@google-cloud/storage). The service-account JSON is used for
// self-signed JWTs (google-auth-library's JWT with useJWTAccessWithScope): no OAuth token exchange, so
// the account JSON's token_uri is never contacted (a user-supplied URL the SSRF guard would otherwise
// have to police). Only client_email, private_key and private_key_id are taken from the JSON. A custom
// endpoint (GCS-compatible servers, emulators) is checked by the SSRF guard before use; the storage
// client's own agent cannot be replaced, so the check is at resolve time, not connect time.
import type { Readable } from 'node:stream';
import { Storage, type Bucket, type GetFilesOptions } from '@google-cloud/storage';
import { JWT } from 'google-auth-library';
import { SourceError, classifyStatus, type BucketSource, type ListPage } from './source.ts';

export interface GcsCredentials {
  /** The service-account key file, as a JSON string or object. */
  service_account_json: string | Record<string, unknown>;
}

export interface GcsSourceSpec {
  bucket: string;
  prefix: string;
  endpoint?: string | null;
}

const READ_SCOPE = 'https://www.googleapis.com/auth/devstorage.read_only';
/** How long a read of one object waits for the first response before it fails as transient (and is retried). */
const OPEN_TIMEOUT_MS = 60_000;

/**
 * Parse and check a service-account JSON.
 * @throws SourceError invalid naming the missing field
 */
export function parseServiceAccount(raw: GcsCredentials['service_account_json']): { client_email: string; private_key: string; private_key_id?: string; project_id?: string } {
  let obj: Record<string, unknown>;
  try {
    obj = typeof raw === 'string' ? (JSON.parse(raw) as Record<string, unknown>) : raw;
  } catch {
    throw new SourceError('invalid', 'service_account_json is not valid JSON.');
  }
  if (!obj || typeof obj !== 'object') throw new SourceError('invalid', 'service_account_json must be a JSON object.');
  for (const f of ['client_email', 'private_key'] as const) {
    if (typeof obj[f] !== 'string' || !obj[f]) throw new SourceError('invalid', `service_account_json has no ${f}.`);
  }
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(String(obj.private_key))) {
    throw new SourceError('invalid', 'service_account_json.private_key is not a PEM private key.');
  }
  return {
    client_email: String(obj.client_email), private_key: String(obj.private_key),
    private_key_id: typeof obj.private_key_id === 'string' ? obj.private_key_id : undefined,
    project_id: typeof obj.project_id === 'string' ? obj.project_id : undefined,
  };
}

function toSourceError(err: unknown, onObject: boolean): SourceError {
  if (err instanceof SourceError) return err;
  const e = err as { code?: number | string; message?: string; response?: { status?: number } };
  const status = typeof e.code === 'number' ? e.code : e.response?.status;
  const code = typeof e.code === 'string' ? e.code : undefined;
  let kind = classifyStatus(status, code, onObject);
  if (String(e.message).includes('invalid_grant') || String(e.message).includes('error:1E08010C') || String(e.message).includes('DECODER')) kind = 'auth';
  return new SourceError(kind, String(e.message ?? err).slice(0, 500), status);
}

export class GcsSource implements BucketSource {
  private readonly bucket: Bucket;

  private constructor(private readonly spec: GcsSourceSpec, creds: GcsCredentials) {
    const sa = parseServiceAccount(creds.service_account_json);
    const jwt = new JWT({ email: sa.client_email, key: sa.private_key, keyId: sa.private_key_id, scopes: [READ_SCOPE] });
    jwt.useJWTAccessWithScope = true;
    const storage = new Storage({
      projectId: sa.project_id, authClient: jwt,
      ...(spec.endpoint ? { apiEndpoint: spec.endpoint, useAuthWithCustomEndpoint: true } : {}),
      retryOptions: { autoRetry: true, maxRetries: 2, totalTimeout: 120 },
    });
    this.bucket = storage.bucket(spec.bucket);
  }

  /** @throws SourceError forbidden_endpoint / invalid (credentials JSON) */
  static async open(spec: GcsSourceSpec, creds: GcsCredentials, checkEndpoint: (e: string) => Promise<URL>): Promise<GcsSource> {
    if (spec.endpoint) await checkEndpoint(spec.endpoint);
    return new GcsSource(spec, creds);
  }

  async list(cursor: string | null, pageSize: number): Promise<ListPage> {
    const query: GetFilesOptions = { autoPaginate: false, maxResults: pageSize, prefix: this.spec.prefix || undefined, pageToken: cursor ?? undefined };
    try {
      const [files, next] = await this.bucket.getFiles(query);
      const objects = files.map((f) => ({ key: f.name, size: Number(f.metadata.size ?? 0), etag: f.metadata.md5Hash ?? f.metadata.etag }));
      const token = (next as { pageToken?: string } | null)?.pageToken;
      return { objects, nextCursor: token || null };
    } catch (err) {
      throw toSourceError(err, false);
    }
  }

  async open(key: string): Promise<Readable> {
    // The request starts when the stream is first read, and HTTP errors arrive as stream errors: wait for
    // the first readable data (or the end) so 401/404 are classified here, before the stream is handed on.
    const stream = this.bucket.file(key).createReadStream();
    return new Promise<Readable>((resolve, reject) => {
      const timer = setTimeout(() => { stream.destroy(); reject(new SourceError('transient', `no response for ${key} within ${OPEN_TIMEOUT_MS} ms`)); }, OPEN_TIMEOUT_MS);
      const onError = (err: unknown) => { clearTimeout(timer); reject(toSourceError(err, true)); };
      stream.once('error', onError);
      stream.once('readable', () => {
        clearTimeout(timer);
        stream.off('error', onError);
        resolve(stream);
      });
    });
  }

  async location(): Promise<string | null> {
    try {
      const [md] = await this.bucket.getMetadata();
      return md.location ? String(md.location).toLowerCase() : null;
    } catch (err) {
      const e = toSourceError(err, false);
      if (e.kind === 'bucket_not_found' || e.kind === 'forbidden_endpoint') throw e;
      return null; // storage.buckets.get is a separate permission from objects.list/get
    }
  }

  close(): void {
    /* the client holds no sockets of its own beyond the shared keep-alive pool */
  }
}
