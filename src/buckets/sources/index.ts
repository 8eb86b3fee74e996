// Opening a bucket source from a task's stored description: validates the credentials' shape per
// source type and hands the endpoint check (SSRF guard) to the adapters.
import { AppError } from '../../internal/errors.ts';
import type { NetGuard } from '../../internal/net-guard.ts';
import { checkEndpoint, SourceError, type BucketSource } from './source.ts';
import { S3Source, type S3Credentials } from './s3-source.ts';
import { GcsSource, parseServiceAccount, type GcsCredentials } from './gcs-source.ts';

export type SourceType = 's3' | 'gcs';

export interface SourceSpec {
  type: SourceType;
  bucket: string;
  prefix: string;
  region?: string | null;
  endpoint?: string | null;
}

export type SourceCredentials = S3Credentials | GcsCredentials;

/**
 * Check that `creds` has the fields the source type needs (spec: s3 -> access_key_id and
 * secret_access_key; gcs -> service_account_json) and return only those fields.
 * @throws AppError validation_failed naming the missing or malformed field
 */
export function validateCredentials(type: SourceType, creds: unknown): SourceCredentials {
  const c = (creds ?? {}) as Record<string, unknown>;
  const str = (f: string) => typeof c[f] === 'string' && (c[f] as string).length > 0 && (c[f] as string).length <= 4096;
  if (type === 's3') {
    for (const f of ['access_key_id', 'secret_access_key']) {
      if (!str(f)) throw new AppError('validation_failed', `source.credentials.${f} is required for an s3 source (a non-empty string).`, { field: `source.credentials.${f}` });
    }
    if (c.session_token !== undefined && !str('session_token')) throw new AppError('validation_failed', 'source.credentials.session_token must be a non-empty string.', { field: 'source.credentials.session_token' });
    const out: S3Credentials = { access_key_id: c.access_key_id as string, secret_access_key: c.secret_access_key as string };
    if (c.session_token) out.session_token = c.session_token as string;
    return out;
  }
  const sa = c.service_account_json;
  if (typeof sa !== 'string' && (typeof sa !== 'object' || sa === null)) {
    throw new AppError('validation_failed', 'source.credentials.service_account_json is required for a gcs source (the key file as a JSON string or object).', { field: 'source.credentials.service_account_json' });
  }
  try {
    parseServiceAccount(sa as GcsCredentials['service_account_json']);
  } catch (err) {
    throw new AppError('validation_failed', `source.credentials.${(err as Error).message}`, { field: 'source.credentials.service_account_json' });
  }
  return { service_account_json: sa as GcsCredentials['service_account_json'] };
}

/**
 * Open the source described by `spec` with `creds`.
 * @throws SourceError forbidden_endpoint when the SSRF guard refuses the endpoint; invalid for bad credentials
 */
export async function openSource(spec: SourceSpec, creds: SourceCredentials, net: NetGuard): Promise<BucketSource> {
  const check = (e: string) => checkEndpoint(net, e);
  if (spec.type === 's3') return S3Source.open(spec, creds as S3Credentials, net, check);
  if (spec.type === 'gcs') return GcsSource.open(spec, creds as GcsCredentials, check);
  throw new SourceError('invalid', `unknown source type ${String((spec as { type: unknown }).type)}`);
}

export { SourceError, isSourceError, checkEndpoint, type BucketSource, type SourceObject, type ListPage } from './source.ts';
