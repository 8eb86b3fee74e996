// EPUB parser (EPUB 2 and 3): META-INF/container.xml names the OPF package document; its spine gives
// the reading order of the XHTML content documents, each converted through the HTML path
// (html-to-markdown.ts -> markdown-blocks.ts, so chapter headings, lists and tables behave as for
// HTML). Page = the 1-based position of a content document among the spine documents that have
// content (EPUB has no fixed pages; a chapter file is the natural unit), pages = their number. Images
// referenced by chapters are taken from the package as assets. Title: the OPF dc:title, else the
// first heading. DRM-encrypted content (META-INF/encryption.xml covering content documents, other than
// font obfuscation) fails with 422 encrypted_document.
import type JSZip from 'jszip';
import { decodeText } from './decode-text.ts';
import { htmlToMarkdown } from './html-to-markdown.ts';
import { firstHeading, markdownToBlocks } from './markdown-blocks.ts';
import type { Block, ImageAsset, ParsedDocument } from './types.ts';
import { ParseError } from './types.ts';
import { attr, child, children, descendant, descendants, imageMediaType, openZip, readXml, resolvePath, squash, textOf } from './xml-dom.ts';

/** Total bytes of images preloaded from one book (larger books keep image references only). */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
const FONT_OBFUSCATION = /idpf\.org\/2008\/embedding|ns\.adobe\.com\/pdf\/enc#RC/;

async function assertNotEncrypted(zip: JSZip): Promise<void> {
  const enc = await readXml(zip, 'META-INF/encryption.xml').catch(() => undefined);
  for (const data of descendants(enc, 'EncryptedData')) {
    const algorithm = attr(descendant(data, 'EncryptionMethod'), 'Algorithm') ?? '';
    const uri = attr(descendant(data, 'CipherReference'), 'URI') ?? '';
    if (!FONT_OBFUSCATION.test(algorithm) && /\.(x?html?|xml)$/i.test(uri)) {
      throw new ParseError(422, 'encrypted_document', 'The EPUB content is DRM-encrypted; it cannot be read.');
    }
  }
}

/** Image bytes of the package by path, up to MAX_IMAGE_BYTES in total. */
async function loadImages(zip: JSZip): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  let total = 0;
  for (const name of Object.keys(zip.files)) {
    const f = zip.files[name];
    if (f.dir || !imageMediaType(name)) continue;
    const data = await f.async('nodebuffer');
    total += data.length;
    if (total > MAX_IMAGE_BYTES) break;
    out.set(name, data);
  }
  return out;
}

/** Parse an .epub file. Throws ParseError 415 `unreadable_document` (no OPF), 422 `encrypted_document`. */
export async function parseEpub(data: Buffer): Promise<ParsedDocument> {
  const zip = await openZip(data, 'EPUB');
  await assertNotEncrypted(zip);
  const container = await readXml(zip, 'META-INF/container.xml');
  const opfPath =
    attr(descendant(container, 'rootfile'), 'full-path') ?? Object.keys(zip.files).find((n) => n.endsWith('.opf'));
  const opf = opfPath ? await readXml(zip, opfPath) : undefined;
  if (!opf || !opfPath) throw new ParseError(415, 'unreadable_document', 'The EPUB has no OPF package document.');

  const manifest = new Map<string, { href: string; mediaType: string }>();
  for (const item of children(descendant(opf, 'manifest'), 'item')) {
    const id = attr(item, 'id');
    const href = attr(item, 'href');
    if (id && href) manifest.set(id, { href: resolvePath(opfPath, decodeURIComponent(href)), mediaType: attr(item, 'media-type') ?? '' });
  }
  const spine = children(descendant(opf, 'spine'), 'itemref')
    .map((ref) => manifest.get(attr(ref, 'idref') ?? ''))
    .filter((it): it is { href: string; mediaType: string } => !!it && /html|xml/.test(it.mediaType));

  const images = await loadImages(zip);
  const assets = new Map<string, ImageAsset>();
  const blocks: Block[] = [];
  let page = 0;
  for (const item of spine) {
    const file = zip.file(item.href);
    if (!file) continue;
    const html = decodeText(await file.async('nodebuffer'), 'utf-8').text;
    const current = page + 1;
    const converted = htmlToMarkdown(html, {
      assetForSrc: (src) => {
        if (/^[a-z]+:/i.test(src)) return undefined;
        const target = resolvePath(item.href, decodeURIComponent(src.split(/[?#]/)[0]));
        const bytes = images.get(target);
        if (!bytes) return undefined;
        const name = target.slice(target.lastIndexOf('/') + 1);
        if (!assets.has(target)) assets.set(target, { name, mediaType: imageMediaType(target)!, data: bytes, page: current });
        return name;
      },
    });
    const chapter = markdownToBlocks(converted.markdown, current);
    if (!chapter.length) continue;
    page = current;
    blocks.push(...chapter);
  }
  const metadata = descendant(opf, 'metadata');
  const title = squash(textOf(child(metadata, 'title') ?? descendant(metadata, 'title'))) || firstHeading(blocks);
  return { title: title || undefined, pages: Math.max(1, page), blocks, images: [...assets.values()] };
}
