// BucketSource over Amazon S3 and S3-compatible stores (@aws-sdk/client-s3): ListObjectsV2 pages from
// a continuation token, GetObject streams, GetBucketLocation. With a custom endpoint the client uses
// path-style addressing (what MinIO, Ceph RGW and most compatible stores expect). Every connection goes
// through agents whose DNS lookup applies the SSRF guard, and the endpoint is checked before first use.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { S3Client, ListObjectsV2Command, GetObjectCommand, GetBucketLocationCommand } from '@aws-sdk/client-s3';
import type { NetGuard } from '../../internal/net-guard.ts';
import { SourceError, classifyStatus, guardedLookup, type BucketSource, type ListPage } from './source.ts';

export interface S3Credentials {
  access_key_id: string;
  secret_access_key: string;
  session_token?: string;
}

export interface S3SourceSpec {
  bucket: string;
  prefix: string;
  region?: string | null;
  endpoint?: string | null;
}

/** Map an SDK error to a SourceError. */
function toSourceError(err: unknown, onObject: boolean): SourceError {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number }; cause?: { code?: string } };
  const status = e.$metadata?.httpStatusCode;
  const code = e.code ?? e.cause?.code ?? (status === undefined ? e.name : undefined);
  let kind = classifyStatus(status, code, onObject);
  if (e.name === 'NoSuchBucket') kind = 'bucket_not_found';
  if (e.name === 'NoSuchKey') kind = 'object_not_found';
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'ExpiredToken', 'InvalidToken'].includes(String(e.name))) kind = 'auth';
  if (String(e.message).includes('is not public')) kind = 'forbidden_endpoint';
  const what = e.name && e.name !== 'Error' ? `${e.name}: ` : '';
  return new SourceError(kind, `${what}${e.message ?? String(err)}`.slice(0, 500), status);
}

export class S3Source implements BucketSource {
  private readonly client: S3Client;

  /** Build the client; call `S3Source.open` instead, which checks the endpoint first. */
  private constructor(private readonly spec: S3SourceSpec, creds: S3Credentials, net: NetGuard) {
    const lookup = guardedLookup(net) as unknown as http.AgentOptions['lookup'];
    this.client = new S3Client({
      region: spec.region || 'us-east-1',
      endpoint: spec.endpoint || undefined,
      forcePathStyle: Boolean(spec.endpoint),
      credentials: { accessKeyId: creds.access_key_id, secretAccessKey: creds.secret_access_key, sessionToken: creds.session_token },
      maxAttempts: 3,
      requestHandler: {
        httpAgent: new http.Agent({ keepAlive: true, maxSockets: 128, lookup } as http.AgentOptions),
        httpsAgent: new https.Agent({ keepAlive: true, maxSockets: 128, lookup } as https.AgentOptions),
        connectionTimeout: 10_000,
        requestTimeout: 120_000,
      },
    });
  }

  /**
   * @throws SourceError forbidden_endpoint when the endpoint is refused by the SSRF guard
   */
  static async open(spec: S3SourceSpec, creds: S3Credentials, net: NetGuard, checkEndpoint: (e: string) => Promise<URL>): Promise<S3Source> {
    if (spec.endpoint) await checkEndpoint(spec.endpoint);
    return new S3Source(spec, creds, net);
  }

  async list(cursor: string | null, pageSize: number, signal?: AbortSignal): Promise<ListPage> {
    try {
      const r = await this.client.send(new ListObjectsV2Command({
        Bucket: this.spec.bucket, Prefix: this.spec.prefix || undefined, MaxKeys: pageSize, ContinuationToken: cursor ?? undefined,
      }), { abortSignal: signal });
      const objects = (r.Contents ?? []).filter((o) => o.Key !== undefined)
        .map((o) => ({ key: o.Key!, size: Number(o.Size ?? 0), etag: o.ETag?.replace(/"/g, '') }));
      const next = r.IsTruncated ? r.NextContinuationToken ?? null : null;
      if (r.IsTruncated && !next) throw new SourceError('invalid', 'The store said the listing is truncated but gave no continuation token.');
      return { objects, nextCursor: next };
    } catch (err) {
      if (err instanceof SourceError) throw err;
      throw toSourceError(err, false);
    }
  }

  async open(key: string, signal?: AbortSignal): Promise<Readable> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.spec.bucket, Key: key }), { abortSignal: signal });
      if (!r.Body) throw new SourceError('invalid', `GetObject ${key} returned no body`);
      return r.Body as Readable;
    } catch (err) {
      if (err instanceof SourceError) throw err;
      throw toSourceError(err, true);
    }
  }

  async location(): Promise<string | null> {
    try {
      const r = await this.client.send(new GetBucketLocationCommand({ Bucket: this.spec.bucket }));
      // S3 reports us-east-1 as an empty LocationConstraint (and the legacy "EU" for eu-west-1).
      const loc = r.LocationConstraint as string | undefined;
      if (!loc) return 'us-east-1';
      return loc === 'EU' ? 'eu-west-1' : loc.toLowerCase();
    } catch (err) {
      const e = toSourceError(err, false);
      if (e.kind === 'bucket_not_found' || e.kind === 'forbidden_endpoint') throw e;
      // Not every S3-compatible store implements GetBucketLocation, and the permission is separate.
      return null;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
