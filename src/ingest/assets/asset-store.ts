// Extracted assets of a document in the blob store (DESIGN.md §2: "original bytes and extracted
// assets"). Layout under `projects/<projectId>/assets/<docId>/` — the prefix a document delete and a
// project purge remove:
//   manifest.json          {version, images: [{name, media_type, alt?, page, key, bytes}],
//                           tables: [{name, markdown, rows, page}]}
//   images/<n>-<safe name> the image bytes (PNG/JPEG/GIF/WebP as extracted)
// Tables live inside the manifest (they are small text); images are separate blobs so a search that
// returns assets reads only the ones it sends. Page images are never stored (rendered scans exist only
// in memory during OCR).
import type { BlobStore } from '../../storage/blob-store.ts';
import type { Block, ParsedDocument } from '../parse/types.ts';

export interface StoredImage {
  name: string;
  media_type: string;
  alt?: string;
  page: number;
  /** Blob key of the bytes. */
  key: string;
  bytes: number;
}

export interface StoredTable {
  name: string;
  /** GFM table as it appears in the document text. */
  markdown: string;
  /** Cells row by row, header row first. */
  rows: string[][];
  page: number;
}

export interface AssetManifest {
  version: 1;
  images: StoredImage[];
  tables: StoredTable[];
}

/** Blob prefix of a document's assets (no trailing slash). */
export function assetPrefix(projectId: string, docId: string): string {
  return `projects/${projectId}/assets/${docId}`;
}

/** Cells of a GFM table (header first; the delimiter row dropped; `\|` unescaped). */
export function markdownTableRows(markdown: string): string[][] {
  const rows: string[][] = [];
  for (const line of markdown.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('|')) continue;
    if (/^\|(\s*:?-{3,}:?\s*\|)+$/.test(t)) continue;
    const inner = t.replace(/^\|/, '').replace(/\|$/, '');
    rows.push(inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|')));
  }
  return rows;
}

/** Tables of a parsed document (its table blocks), named table-1, table-2, … in document order. */
export function tablesOf(blocks: Block[]): StoredTable[] {
  return blocks
    .filter((b) => b.kind === 'table')
    .map((b, i) => ({ name: `table-${i + 1}`, markdown: b.text, rows: markdownTableRows(b.text), page: b.page }));
}

/**
 * Write a document's images and tables plus the manifest. Idempotent for a retried job (same keys).
 * @returns counts written
 */
export async function saveAssets(blobs: BlobStore, projectId: string, docId: string, doc: ParsedDocument): Promise<{ images: number; tables: number }> {
  const prefix = assetPrefix(projectId, docId);
  const images: StoredImage[] = [];
  let n = 0;
  for (const img of doc.images) {
    const safe = img.name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._-]+/, '').slice(0, 100) || 'image';
    const key = `${prefix}/images/${++n}-${safe}`;
    await blobs.putBuffer(key, img.data);
    images.push({ name: img.name, media_type: img.mediaType, alt: img.alt, page: img.page, key, bytes: img.data.length });
  }
  const tables = tablesOf(doc.blocks);
  if (images.length || tables.length) {
    const manifest: AssetManifest = { version: 1, images, tables };
    await blobs.putBuffer(`${prefix}/manifest.json`, Buffer.from(JSON.stringify(manifest)));
  }
  return { images: images.length, tables: tables.length };
}

/** A document's manifest, or null when it has no assets (or they were deleted). */
export async function loadManifest(blobs: BlobStore, projectId: string, docId: string): Promise<AssetManifest | null> {
  try {
    const m = JSON.parse((await blobs.get(`${assetPrefix(projectId, docId)}/manifest.json`)).toString('utf8')) as AssetManifest;
    return m && Array.isArray(m.images) && Array.isArray(m.tables) ? m : null;
  } catch {
    return null;
  }
}
