// RTF parser: rtf-reader.ts interprets the RTF (code pages via iconv-lite, \u escapes, tables,
// pictures); this module turns its paragraphs into blocks: headings (outline level or heading
// styles), runs of list paragraphs as one list block, table rows as a GFM table (first row = header),
// pictures as `[IMAGE: image-N.ext]` blocks with their bytes as assets (PNG/JPEG/EMF/WMF). Pages come
// from explicit \page breaks; the page count is \info\nofpages when written, else the last page.
// Title: \info\title, else the first heading.
import { firstHeading, gfmTable } from './markdown-blocks.ts';
import { readRtf } from './rtf-reader.ts';
import type { Block, ImageAsset, ParsedDocument } from './types.ts';
import { ParseError } from './types.ts';

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/x-emf': 'emf', 'image/x-wmf': 'wmf' };

/** Parse an .rtf file. Throws ParseError 415 `unreadable_document` when the bytes are not RTF. */
export async function parseRtf(data: Buffer): Promise<ParsedDocument> {
  if (!data.subarray(0, 16).toString('latin1').trimStart().startsWith('{\\rtf')) {
    throw new ParseError(415, 'unreadable_document', 'The file does not start with an RTF header ({\\rtf).');
  }
  const doc = readRtf(data);
  const images: ImageAsset[] = doc.images.map((img, i) => ({
    name: `image-${i + 1}.${EXT[img.mediaType] ?? 'bin'}`, mediaType: img.mediaType, data: img.data, page: 1,
  }));
  const blocks: Block[] = [];
  for (const p of doc.paragraphs) {
    if (p.image !== undefined) {
      const asset = images[p.image];
      asset.page = p.page;
      blocks.push({ kind: 'image', text: `[IMAGE: ${asset.name}]`, page: p.page, assetName: asset.name });
    } else if (p.rows) {
      const rows = p.rows.filter((r) => r.some((c) => c.trim()));
      if (rows.length) blocks.push({ kind: 'table', text: gfmTable(rows[0], rows.slice(1)), page: p.page });
    } else if (p.heading) {
      blocks.push({ kind: 'heading', text: p.text.replace(/\s+/g, ' '), level: Math.min(p.heading, 6), page: p.page });
    } else if (p.list) {
      const item = `${/^\d/.test(p.list) ? p.list : '-'} ${p.text.replace(/\s*\n\s*/g, ' ')}`;
      const prev = blocks.at(-1);
      if (prev?.kind === 'list' && prev.page === p.page) prev.text += `\n${item}`;
      else blocks.push({ kind: 'list', text: item, page: p.page });
    } else {
      blocks.push({ kind: 'paragraph', text: p.text, page: p.page });
    }
  }
  const lastPage = Math.max(1, ...blocks.map((b) => b.page));
  return { title: doc.title ?? firstHeading(blocks), pages: Math.max(doc.pages ?? 1, lastPage), blocks, images };
}
