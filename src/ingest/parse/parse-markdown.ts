// Markdown parser: decodes the bytes, strips a YAML front matter block (taking its `title:` when
// present) and lexes the rest with markdown-blocks.ts. The title is the front-matter title or the
// first top-level heading. Linked images are reported for X-Base-URL resolution (remoteImages).
import { decodeText } from './decode-text.ts';
import { firstHeading, markdownToBlocks } from './markdown-blocks.ts';
import type { ParsedDocument, RemoteImageRef } from './types.ts';

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

/** Parse a .md / .markdown file into blocks (page 1). */
export async function parseMarkdown(data: Buffer): Promise<ParsedDocument> {
  let { text } = decodeText(data);
  text = text.replace(/\r\n?/g, '\n');
  let metaTitle: string | undefined;
  const fm = FRONT_MATTER.exec(text);
  if (fm) {
    const m = /^title:\s*["']?(.+?)["']?\s*$/m.exec(fm[1]);
    metaTitle = m?.[1].trim() || undefined;
    text = text.slice(fm[0].length);
  }
  const blocks = markdownToBlocks(text);
  const images = blocks.filter((b) => b.kind === 'image').length;
  return { title: metaTitle ?? firstHeading(blocks), pages: 1, blocks, images: [], imageCount: images, remoteImages: linkedImages(text) };
}

/** `![alt](src)` links (not data: URIs), named as markdown-blocks.ts names them (basename, else alt). */
function linkedImages(text: string): RemoteImageRef[] {
  const out: RemoteImageRef[] = [];
  for (const m of text.matchAll(/!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const [, alt, src] = m;
    if (src.startsWith('data:')) continue;
    const pathPart = src.split(/[?#]/)[0];
    const name = (pathPart.slice(pathPart.lastIndexOf('/') + 1) || alt.trim() || 'image').replace(/[\]\n]/g, '_');
    out.push({ name, src, alt: alt.trim() || undefined, page: 1 });
  }
  return out;
}
