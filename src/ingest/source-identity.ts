// Source identity of a document (docs/sync.md): where its bytes came from — a bucket object, the final URL
// of a remote ingest, or an id the client gives in X-Source-ID — and a hash of those bytes. Ingesting the
// same source again replaces the document under its doc_id (the index swap is one commit,
// docs/decisions/2026-11-29-source-replacement.md), and the same bytes with the same attributes are a
// no-op answered with the existing document. Plain uploads carry no source and keep creating documents.
import crypto from 'node:crypto';
import type { Selectable } from 'kysely';
import { AppError } from '../internal/errors.ts';
import { yieldToEventLoop } from '../internal/event-loop.ts';
import type { ControlPlane } from '../storage/db.ts';
import type { DocumentsTable } from '../storage/schema.ts';

/** Longest X-Source-ID accepted (characters): room for a path or URL-like id, bounded for the unique index. */
export const SOURCE_ID_MAX = 1024;

/** Bytes hashed between two yields to the event loop (≈2 ms of sha256 on this machine). */
const HASH_SLICE = 4 * 1024 * 1024;

/** Prefix of a client-given source id in `documents.source_key`, so it can never equal a URL or bucket key. */
const CLIENT_ID_PREFIX = 'id:';

export type DocumentRow = Selectable<DocumentsTable>;

/**
 * Validate X-Source-ID: 1–1024 characters, no control characters (an extension header; docs/sync.md).
 * @returns the source key stored for it (`id:<value>`), or undefined when the header is absent or blank
 * @throws AppError invalid_header (400)
 */
export function sourceKeyFromHeader(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const id = raw.trim();
  if (id === '') return undefined;
  // eslint-disable-next-line no-control-regex
  if (id.length > SOURCE_ID_MAX || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new AppError('invalid_header', `X-Source-ID must be 1-${SOURCE_ID_MAX} characters without control characters.`, { header: 'X-Source-ID' });
  }
  return CLIENT_ID_PREFIX + id;
}

/** The source key of a bucket object: its citation URL (`s3://bucket/key`, `gs://bucket/key`). */
export function bucketSourceKey(sourceType: string, bucket: string, key: string): string {
  return `${sourceType === 'gcs' ? 'gs' : 's3'}://${bucket}/${key}`;
}

/**
 * sha256 hex of `data`, in slices with the event loop given back between them (a 500 MB object costs
 * about 1 s of hashing, which must not stall other requests).
 */
export async function contentHash(data: Buffer): Promise<string> {
  const h = crypto.createHash('sha256');
  for (let i = 0; i < data.length; i += HASH_SLICE) {
    h.update(data.subarray(i, i + HASH_SLICE));
    if (i + HASH_SLICE < data.length) await yieldToEventLoop();
  }
  return h.digest('hex');
}

/** The project's document from `sourceKey` (visible or being deleted), if any. */
export async function documentOfSource(cp: ControlPlane, projectId: string, sourceKey: string): Promise<DocumentRow | undefined> {
  return cp.db.selectFrom('documents').selectAll()
    .where('project_id', '=', projectId).where('source_key', '=', sourceKey).executeTakeFirst();
}

/**
 * True when re-ingesting would change nothing: the same bytes under the same name, attributes and
 * unencrypted strings (the attributes live on every chunk row, so a change of them is a replacement too).
 */
export function isUnchanged(doc: DocumentRow, next: { contentHash: string; filename: string; attributes: string; unencryptedStrings: string }): boolean {
  return doc.state === 'visible' && doc.content_hash === next.contentHash && doc.filename === next.filename
    && doc.attributes === next.attributes && doc.unencrypted_strings === next.unencryptedStrings;
}
