// `assets` of a search response (spec RetrievalContext: present only when return_assets is true and
// assets exist; keyed by doc_id with `images` and `tables`). Only cited documents (those with a hit in
// the response) contribute. Element shapes (our decision, docs/assets.md):
//   images: {name, data_uri, media_type, alt?, page}   — base64 data URI of the stored bytes
//   tables: {name, markdown, rows, page}               — rows = cells row by row, header first
// Order within a document: assets the returned text references or that sit on the returned pages come
// first, then the rest by page. The whole `assets` object is bounded (default 8 MB of data URIs and
// table text, at most 20 images and 50 tables per document); what does not fit is left out.
import type { BlobStore } from '../../storage/blob-store.ts';
import { loadManifest, type StoredImage, type StoredTable } from './asset-store.ts';

export interface AssetImage {
  name: string;
  data_uri: string;
  media_type: string;
  alt?: string;
  page: number;
}

export interface AssetTable {
  name: string;
  markdown: string;
  rows: string[][];
  page: number;
}

export type DocAssets = { images: AssetImage[]; tables: AssetTable[] };

/** What a cited document contributed to the response: its pages and text. */
export interface CitedDoc {
  docId: string;
  pages: number[];
  content: string;
}

export interface AssetLimits {
  maxTotalBytes: number;
  maxImagesPerDoc: number;
  maxTablesPerDoc: number;
}

export const DEFAULT_ASSET_LIMITS: AssetLimits = { maxTotalBytes: 8 * 1024 * 1024, maxImagesPerDoc: 20, maxTablesPerDoc: 50 };

function relevance(page: number, referenced: boolean, pages: Set<number>): number {
  if (referenced) return 0;
  if (pages.has(page)) return 1;
  return 2;
}

/**
 * Assets of the cited documents, in citation order, within the limits.
 * @returns undefined when no cited document has assets (the field is then omitted)
 */
export async function assetsForCitedDocs(blobs: BlobStore, projectId: string, cited: CitedDoc[], limits: AssetLimits = DEFAULT_ASSET_LIMITS): Promise<Record<string, DocAssets> | undefined> {
  const out: Record<string, DocAssets> = {};
  let budget = limits.maxTotalBytes;
  let any = false;
  for (const doc of cited) {
    if (out[doc.docId]) continue;
    const manifest = await loadManifest(blobs, projectId, doc.docId);
    if (!manifest || (!manifest.images.length && !manifest.tables.length)) continue;
    const pages = new Set(doc.pages);
    const rank = <T extends StoredImage | StoredTable>(items: T[], refd: (t: T) => boolean) =>
      [...items].sort((a, b) => relevance(a.page, refd(a), pages) - relevance(b.page, refd(b), pages) || a.page - b.page);
    const entry: DocAssets = { images: [], tables: [] };
    for (const t of rank(manifest.tables, (t) => doc.content.includes(t.markdown.split('\n')[0]))) {
      if (entry.tables.length >= limits.maxTablesPerDoc) break;
      const size = t.markdown.length * 2;
      if (size > budget) continue;
      budget -= size;
      entry.tables.push({ name: t.name, markdown: t.markdown, rows: t.rows, page: t.page });
    }
    for (const img of rank(manifest.images, (i) => doc.content.includes(`[IMAGE: ${i.name}]`))) {
      if (entry.images.length >= limits.maxImagesPerDoc) break;
      const size = Math.ceil(img.bytes / 3) * 4 + img.media_type.length + 13;
      if (size > budget) continue;
      let data: Buffer;
      try {
        data = await blobs.get(img.key);
      } catch {
        continue; // deleted meanwhile
      }
      budget -= size;
      entry.images.push({
        name: img.name, data_uri: `data:${img.media_type};base64,${data.toString('base64')}`, media_type: img.media_type,
        ...(img.alt ? { alt: img.alt } : {}), page: img.page,
      });
    }
    if (entry.images.length || entry.tables.length) {
      out[doc.docId] = entry;
      any = true;
    }
  }
  return any ? out : undefined;
}
