// What the task driver needs from an object store, independent of S3 or GCS: paginated listing from an
// opaque cursor (pages may be empty: the driver keeps going while a cursor comes back), a streamed read
// of one object, and the bucket's location when the store can tell. Store errors are classified into a
// few kinds the state machine acts on (auth -> paused_credential_error, bucket_not_found -> failed, ...).
import dns from 'node:dns';
import type { Readable } from 'node:stream';
import type { NetGuard } from '../../internal/net-guard.ts';

export interface SourceObject {
  key: string;
  /** Bytes, as listed. */
  size: number;
  etag?: string;
}

export interface ListPage {
  objects: SourceObject[];
  /** Cursor of the next page; null when the listing is complete. */
  nextCursor: string | null;
}

export interface BucketSource {
  /** One page of objects under the task's prefix, starting at `cursor` (null = from the start). */
  list(cursor: string | null, pageSize: number, signal?: AbortSignal): Promise<ListPage>;
  /** Stream one object's bytes. @throws SourceError */
  open(key: string, signal?: AbortSignal): Promise<Readable>;
  /** The bucket's region/location as the store reports it (lower-case), or null when it cannot tell. */
  location(): Promise<string | null>;
  close(): void;
}

/**
 * auth: the store refused our credentials (401/403); bucket_not_found / object_not_found: 404s;
 * forbidden_endpoint: the SSRF guard refused the endpoint; transient: network or 5xx/429, worth retrying;
 * invalid: anything else the caller cannot fix by retrying (bad region, malformed request).
 */
export type SourceErrorKind = 'auth' | 'bucket_not_found' | 'object_not_found' | 'forbidden_endpoint' | 'transient' | 'invalid';

export class SourceError extends Error {
  constructor(readonly kind: SourceErrorKind, message: string, readonly status?: number) {
    super(message);
    this.name = 'SourceError';
  }
}

export function isSourceError(err: unknown): err is SourceError {
  return err instanceof SourceError || (err as { name?: string })?.name === 'SourceError';
}

/** Network error codes that are worth a retry. */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED', 'UND_ERR_SOCKET', 'TimeoutError', 'RequestTimeout']);

/** Classify a status code / network code into a SourceErrorKind (shared by the S3 and GCS adapters). */
export function classifyStatus(status: number | undefined, code: string | undefined, onObject: boolean): SourceErrorKind {
  if (code === 'EADDRNOTALLOWED') return 'forbidden_endpoint';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return onObject ? 'object_not_found' : 'bucket_not_found';
  if (status === 429 || status === 408 || (status !== undefined && status >= 500)) return 'transient';
  if (status === undefined) return code && !TRANSIENT_CODES.has(code) ? 'invalid' : 'transient';
  return 'invalid';
}

/**
 * A `lookup` for http(s).Agent that refuses private/loopback/metadata addresses unless the operator
 * allowed them (the same rule as NetGuard, applied at connect time so DNS rebinding cannot slip through).
 */
export function guardedLookup(net: NetGuard) {
  return (hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !net.addressAllowed(a.address, hostname));
      if (bad) {
        const e = new Error(`address ${bad.address} of ${hostname} is not public`) as NodeJS.ErrnoException;
        e.code = 'EADDRNOTALLOWED';
        return callback(e, '', 0);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * Check a user-supplied endpoint before any client uses it: http(s) only, no embedded credentials, and
 * every address its host resolves to must be allowed by the SSRF guard.
 * @throws SourceError forbidden_endpoint (or invalid for a malformed URL)
 */
export async function checkEndpoint(net: NetGuard, endpoint: string): Promise<URL> {
  let url: URL;
  try {
    url = net.checkUrl(endpoint);
  } catch (err) {
    throw new SourceError('forbidden_endpoint', (err as Error).message);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addrs: dns.LookupAddress[];
  try {
    addrs = await dns.promises.lookup(host, { all: true });
  } catch (err) {
    throw new SourceError('transient', `The endpoint host ${host} could not be resolved: ${(err as Error).message}`);
  }
  const bad = addrs.find((a) => !net.addressAllowed(a.address, host));
  if (bad) throw new SourceError('forbidden_endpoint', `The endpoint ${host} resolves to ${bad.address}, a private, loopback or link-local address, which may not be reached.`);
  return url;
}
