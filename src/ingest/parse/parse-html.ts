// HTML parser: finds the declared charset in the first bytes (BOM, <meta charset>, http-equiv
// Content-Type), decodes, converts to Markdown (html-to-markdown.ts: noise removal, GFM tables, image
// references) and splits into blocks. Title: <title>, else the first heading. Nothing is fetched:
// remote images are referenced by name only; data-URI images become assets.
import { decodeText } from './decode-text.ts';
import { htmlToMarkdown } from './html-to-markdown.ts';
import { firstHeading, markdownToBlocks } from './markdown-blocks.ts';
import type { ParsedDocument } from './types.ts';

/** Charset named by a <meta> tag within the first 4 KB (the HTML spec's prescan window is 1 KB). */
export function sniffHtmlCharset(data: Buffer): string | undefined {
  const head = data.subarray(0, 4096).toString('latin1');
  const m =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head) ??
    /<meta[^>]+content\s*=\s*["'][^"']*charset=([\w:.-]+)/i.exec(head);
  return m?.[1].toLowerCase();
}

/** Parse an .html / .htm file. */
export async function parseHtml(data: Buffer): Promise<ParsedDocument> {
  const { text } = decodeText(data, sniffHtmlCharset(data));
  const converted = htmlToMarkdown(text);
  const blocks = markdownToBlocks(converted.markdown);
  const title = converted.title ?? firstHeading(blocks);
  return { title, pages: 1, blocks, images: converted.images, imageCount: converted.imageRefs, remoteImages: converted.remoteImages };
}
