// Documents of a namespace: list, describe, delete, and the reconciler that keeps the data plane in
// step with the control plane. A delete hides the document first (state 'deleting', excluded from
// search), then removes its chunks and blobs, then its row — so a crash at any point leaves nothing
// half-visible, and the reconciler finishes what was started (DESIGN.md §2 two-store consistency).
import type { Logger } from 'pino';
import type { Selectable } from 'kysely';
import { AppError } from '../internal/errors.ts';
import type { ControlPlane } from '../storage/db.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { NamespaceIndex } from '../storage/namespace-index.ts';
import type { DocumentsTable } from '../storage/schema.ts';
import { deleteAbbreviations } from '../storage/abbreviation-store.ts';

/** Spec `DocInfo`. */
export interface DocInfo {
  doc_id: string;
  title: string;
  language: string;
  filename: string;
  canonical_url: string;
  pages: number;
  chunkset_count: number;
  chunk_count: number;
  image_count: number;
  table_count: number;
  ingested_at: string;
  source_job_id: string;
  bm25_state: string;
}

export interface DeleteDocResponse {
  doc_id: string;
  vectors_deleted: number;
  storage_deleted: boolean;
}

type DocRow = Selectable<DocumentsTable>;

/**
 * Documents removed per index commit by the reconciler (orphans, interrupted deletes): one commit per
 * batch instead of one per document, with the delete predicate kept to a few tens of kilobytes of SQL.
 */
const RECONCILE_BATCH = 500;

export function toDocInfo(r: DocRow): DocInfo {
  return {
    doc_id: r.doc_id, title: r.title, language: r.language, filename: r.filename, canonical_url: r.canonical_url,
    pages: r.pages, chunkset_count: r.chunkset_count, chunk_count: r.chunk_count, image_count: r.image_count,
    table_count: r.table_count, ingested_at: r.ingested_at, source_job_id: r.source_job_id, bm25_state: r.bm25_state,
  };
}

export class DocumentService {
  constructor(private readonly deps: { cp: ControlPlane; index: NamespaceIndex; blobs: BlobStore; logger: Logger }) {}

  /** Visible documents of a project, newest first. */
  async list(projectId: string): Promise<DocInfo[]> {
    const rows = await this.deps.cp.db.selectFrom('documents').selectAll()
      .where('project_id', '=', projectId).where('state', '=', 'visible')
      .orderBy('ingested_at', 'desc').orderBy('doc_id').execute();
    return rows.map(toDocInfo);
  }

  /** @throws AppError invalid_doc_id (400) for an empty id, document_not_found (404) */
  async get(projectId: string, docId: string): Promise<DocInfo> {
    return toDocInfo(await this.visibleRow(projectId, docId));
  }

  private async visibleRow(projectId: string, docId: string): Promise<DocRow> {
    if (!docId || !docId.trim()) throw new AppError('invalid_doc_id', 'docId must not be empty.');
    const row = await this.deps.cp.db.selectFrom('documents').selectAll()
      .where('project_id', '=', projectId).where('doc_id', '=', docId).where('state', '=', 'visible')
      .executeTakeFirst();
    if (!row) throw new AppError('document_not_found', `No document "${docId}" in this namespace.`, { doc_id: docId });
    return row;
  }

  /**
   * Delete a document: hide, remove vectors and stored content, then the row.
   * @returns the spec's DeleteDocResponse with the real number of vectors removed.
   * @throws AppError invalid_doc_id (400), document_not_found (404)
   */
  async delete(projectId: string, namespace: string, docId: string): Promise<DeleteDocResponse> {
    const row = await this.visibleRow(projectId, docId);
    const hidden = await this.deps.cp.db.updateTable('documents').set({ state: 'deleting' })
      .where('project_id', '=', projectId).where('doc_id', '=', docId).where('state', '=', 'visible').executeTakeFirst();
    if (Number(hidden.numUpdatedRows) === 0) throw new AppError('document_not_found', `No document "${docId}" in this namespace.`, { doc_id: docId });
    return this.purge(row, namespace);
  }

  /**
   * Finish deleting a document another module hid (state `deleting`, e.g. a bucket sync's delete_missing):
   * remove its vectors, stored content and row. A document not in that state is left alone.
   * @returns the DeleteDocResponse, or undefined when there was nothing to purge
   */
  async purgeHidden(projectId: string, namespace: string, docId: string): Promise<DeleteDocResponse | undefined> {
    const row = await this.deps.cp.db.selectFrom('documents').selectAll()
      .where('project_id', '=', projectId).where('doc_id', '=', docId).where('state', '=', 'deleting').executeTakeFirst();
    return row ? this.purge(row, namespace) : undefined;
  }

  private async purge(row: DocRow, namespace: string): Promise<DeleteDocResponse> {
    const vectors = await this.deps.index.deleteDocument(namespace, row.doc_id);
    const storageDeleted = await this.dropFiles(row);
    await deleteAbbreviations(this.deps.cp.db, row.project_id, row.doc_id);
    await this.deps.cp.db.deleteFrom('documents').where('project_id', '=', row.project_id).where('doc_id', '=', row.doc_id).execute();
    return { doc_id: row.doc_id, vectors_deleted: vectors, storage_deleted: storageDeleted };
  }

  /** The document's original and assets. @returns false when the blob store refused (logged) */
  private async dropFiles(row: DocRow): Promise<boolean> {
    try {
      await this.deps.blobs.delete(row.blob_key);
      await this.deps.blobs.deletePrefix(`projects/${row.project_id}/assets/${row.doc_id}`);
      return true;
    } catch (err) {
      this.deps.logger.warn({ err, doc_id: row.doc_id }, 'blob delete failed');
      return false;
    }
  }

  /**
   * Reconcile one project's namespace: finish interrupted deletes, and remove data-plane rows whose
   * document is neither committed nor being produced by an unfinished job (at most RECONCILE_BATCH
   * documents per index commit). Safe while this or another node ingests into the namespace.
   * @returns the interrupted deletes finished and the orphan documents removed from the index
   */
  async reconcile(projectId: string, namespace: string): Promise<{ deletesFinished: number; orphansRemoved: number }> {
    const deleting = await this.deps.cp.db.selectFrom('documents').selectAll()
      .where('project_id', '=', projectId).where('state', '=', 'deleting').execute();
    // Interrupted deletes, in the order a delete runs (chunks, then stored files, then rows), with one
    // index commit and one control-plane statement per RECONCILE_BATCH documents instead of one each.
    for (let i = 0; i < deleting.length; i += RECONCILE_BATCH) {
      const batch = deleting.slice(i, i + RECONCILE_BATCH);
      const ids = batch.map((r) => r.doc_id);
      await this.deps.index.deleteDocuments(namespace, ids);
      for (const row of batch) await this.dropFiles(row);
      await deleteAbbreviations(this.deps.cp.db, projectId, ids);
      await this.deps.cp.db.deleteFrom('documents').where('project_id', '=', projectId).where('doc_id', 'in', ids).execute();
    }
    const indexed = await this.deps.index.listDocIds(namespace);
    if (indexed.length === 0) return { deletesFinished: deleting.length, orphansRemoved: 0 };
    // Jobs first, documents second: a job that commits in between (done and its document row in one
    // transaction) is then seen in one of the two reads, never in neither (another node may be
    // committing while this one starts and reconciles). A job created after these reads writes rows of a
    // fresh document id (not listed here) or, replacing a source, of a document whose row exists (known).
    const inFlight = new Set((await this.deps.cp.db.selectFrom('jobs').select('doc_id')
      .where('project_id', '=', projectId).where('status', 'in', ['pending', 'processing']).execute()).map((r) => r.doc_id));
    const known = new Set((await this.deps.cp.db.selectFrom('documents').select('doc_id')
      .where('project_id', '=', projectId).execute()).map((r) => r.doc_id));
    const orphans = indexed.filter((docId) => !known.has(docId) && !inFlight.has(docId));
    for (let i = 0; i < orphans.length; i += RECONCILE_BATCH) await this.deps.index.deleteDocuments(namespace, orphans.slice(i, i + RECONCILE_BATCH));
    return { deletesFinished: deleting.length, orphansRemoved: orphans.length };
  }
}
