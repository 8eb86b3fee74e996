// The control-plane rows of the abbreviations each document defines (analysis/abbreviations.ts).
// They live beside the documents row and follow it: inserted in the transaction that makes the document
// visible, deleted when it is purged, read only through visible documents — so a query expands a short form
// exactly when a document that defines it can be found, on every node of a PostgreSQL deployment.
import type { Kysely } from 'kysely';
import type { KeyedDefinition } from '../analysis/abbreviations.ts';
import type { Database, DocumentAbbreviationsTable } from './schema.ts';

/** Rows read per lookup at most (a query holds a few short forms; a namespace rarely defines one often). */
const LOOKUP_LIMIT = 2000;

/**
 * Insert a document's definitions inside the caller's transaction (the one that makes the document
 * visible), so they appear and disappear with it.
 */
export async function insertAbbreviations(trx: Kysely<Database>, projectId: string, docId: string, defs: readonly KeyedDefinition[]): Promise<void> {
  const rows: DocumentAbbreviationsTable[] = defs.map((d) => ({ project_id: projectId, doc_id: docId, short_key: d.key, short_form: d.short, long_form: d.long }));
  // Batches stay far below SQLite's 32 766 bound variables (5 a row).
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto('document_abbreviations').values(rows.slice(i, i + 500)).execute();
}

/** Remove one document's rows (its purge), several documents' (the reconciler's), or without docId a whole project's. */
export async function deleteAbbreviations(db: Kysely<Database>, projectId: string, docId?: string | string[]): Promise<void> {
  if (Array.isArray(docId) && docId.length === 0) return;
  let q = db.deleteFrom('document_abbreviations').where('project_id', '=', projectId);
  if (Array.isArray(docId)) q = q.where('doc_id', 'in', docId);
  else if (docId !== undefined) q = q.where('doc_id', '=', docId);
  await q.execute();
}

/** One definition found for a key, and the visible document that gave it. */
export interface DefinedLongForm {
  key: string;
  shortForm: string;
  longForm: string;
  docId: string;
}

/**
 * The long forms that the project's visible documents define under any of `keys`.
 * @returns at most LOOKUP_LIMIT rows, unordered
 */
export async function lookupAbbreviations(db: Kysely<Database>, projectId: string, keys: readonly string[]): Promise<DefinedLongForm[]> {
  if (keys.length === 0) return [];
  const rows = await db.selectFrom('document_abbreviations as a')
    .innerJoin('documents as d', (j) => j.onRef('d.project_id', '=', 'a.project_id').onRef('d.doc_id', '=', 'a.doc_id'))
    .select(['a.short_key', 'a.short_form', 'a.long_form', 'a.doc_id'])
    .where('a.project_id', '=', projectId).where('a.short_key', 'in', [...keys]).where('d.state', '=', 'visible')
    .limit(LOOKUP_LIMIT).execute();
  return rows.map((r) => ({ key: r.short_key, shortForm: r.short_form, longForm: r.long_form, docId: r.doc_id }));
}
