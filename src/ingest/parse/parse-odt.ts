// ODT parser (OpenDocument text): content.xml's office:text through odf-blocks.ts — headings from
// text:h outline levels and Title/Heading styles, paragraphs, nested lists, GFM tables, images from
// Pictures/, footnotes after the paragraph citing them. Pages: LibreOffice writes text:soft-page-break
// where its layout broke pages, so blocks carry those page numbers; the page count is meta.xml's cached
// page-count (else the last page seen). Title: meta.xml dc:title, else the first heading.
// Password-protected files fail with 422 encrypted_document (odf-package.ts).
import { firstHeading } from './markdown-blocks.ts';
import { odfBlocks } from './odf-blocks.ts';
import { openOdf } from './odf-package.ts';
import type { ParsedDocument } from './types.ts';

/** Parse an .odt file. Throws ParseError 422 `encrypted_document`, 415 `unreadable_document`. */
export async function parseOdt(data: Buffer): Promise<ParsedDocument> {
  const pkg = await openOdf(data, 'text', 'ODT');
  const blocks = odfBlocks(pkg.body, pkg.ctx);
  const lastPage = Math.max(1, ...blocks.map((b) => b.page));
  return {
    title: pkg.title ?? firstHeading(blocks),
    pages: Math.max(pkg.pageCount ?? 1, lastPage),
    blocks,
    images: [...pkg.ctx.assets.values()],
  };
}
