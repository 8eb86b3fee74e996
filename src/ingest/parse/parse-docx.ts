// DOCX parser: mammoth converts the document body to semantic HTML (Heading N styles -> <hN>, Title ->
// <h1>, tables, lists, footnotes), which then follows the HTML path (html-to-markdown.ts, GFM tables)
// into blocks. Embedded images are read into assets named `image-N.ext`; linked external files are
// never opened. Title: docProps/core.xml dc:title, else the first heading. Page count: the cached
// <Pages> of docProps/app.xml when present (Word's own figure; block pages are unknown, so 1).
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { htmlToMarkdown } from './html-to-markdown.ts';
import { firstHeading, markdownToBlocks } from './markdown-blocks.ts';
import { ParseError, type ImageAsset, type ParsedDocument } from './types.ts';

const EXT: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/bmp': 'bmp', 'image/tiff': 'tiff',
  'image/x-emf': 'emf', 'image/x-wmf': 'wmf', 'image/svg+xml': 'svg', 'image/webp': 'webp',
};

const STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  "p[style-name='Subtitle'] => h2:fresh",
];

function xmlUnescape(s: string): string {
  return s
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');
}

/** dc:title and cached page count from the package's docProps parts (both optional). */
async function readProps(data: Buffer): Promise<{ title?: string; pages?: number }> {
  const zip = await JSZip.loadAsync(data);
  const core = await zip.file('docProps/core.xml')?.async('string');
  const app = await zip.file('docProps/app.xml')?.async('string');
  const titleRaw = core ? /<dc:title>([\s\S]*?)<\/dc:title>/.exec(core)?.[1] : undefined;
  const title = titleRaw ? xmlUnescape(titleRaw).replace(/\s+/g, ' ').trim() || undefined : undefined;
  const pagesRaw = app ? /<Pages>(\d+)<\/Pages>/.exec(app)?.[1] : undefined;
  const pages = pagesRaw ? Number(pagesRaw) : undefined;
  return { title, pages: pages && pages > 0 ? pages : undefined };
}

/**
 * Parse a .docx file. Throws ParseError(415, 'unreadable_document') when the bytes are not a readable
 * Word package (not a zip, no word/document.xml).
 */
export async function parseDocx(data: Buffer): Promise<ParsedDocument> {
  let props: { title?: string; pages?: number };
  try {
    props = await readProps(data);
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `The file is not a readable DOCX package: ${(err as Error).message}`);
  }
  const images: ImageAsset[] = [];
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: data },
      {
        styleMap: STYLE_MAP,
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(async (image) => {
          const mediaType = image.contentType || 'application/octet-stream';
          const name = `image-${images.length + 1}.${EXT[mediaType] ?? 'bin'}`;
          images.push({ name, mediaType, data: await image.readAsBuffer(), page: 1 });
          return { src: `asset:${name}` };
        }),
      },
    );
    html = result.value;
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `The DOCX document could not be read: ${(err as Error).message}`);
  }
  const converted = htmlToMarkdown(`<html><body>${html}</body></html>`, {
    assetForSrc: (src) => (src.startsWith('asset:') ? src.slice('asset:'.length) : undefined),
  });
  const blocks = markdownToBlocks(converted.markdown);
  return {
    title: props.title ?? firstHeading(blocks),
    pages: props.pages ?? 1,
    blocks,
    images,
    imageCount: Math.max(images.length, converted.imageRefs),
  };
}
