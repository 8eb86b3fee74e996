// Markdown parser: decodes the bytes, strips a YAML front matter block (taking its `title:` when
// present) and lexes the rest with markdown-blocks.ts. The title is the front-matter title or the
// first top-level heading.
import { decodeText } from './decode-text.ts';
import { firstHeading, markdownToBlocks } from './markdown-blocks.ts';
import type { ParsedDocument } from './types.ts';

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
  return { title: metaTitle ?? firstHeading(blocks), pages: 1, blocks, images: [], imageCount: images };
}
