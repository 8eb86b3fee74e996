// EML parser (RFC 822/MIME messages) on mailparser: the subject is the title and a level-1 heading,
// followed by a small header paragraph (From, To, Cc, Date, attachment names) and the body — the HTML
// part through the HTML path when present (it carries the structure), else the text part. Inline
// images (cid: references) and image attachments become assets. Every other attachment that docsearch
// can read is parsed by the caller-supplied `parseAttachment` (parseDocument one level deeper, so the
// recursion is bounded by the caller) and appended under a level-2 heading "Attachment: <filename>",
// its headings shifted two levels down and its pages numbered after the message's. Attachments that
// fail to parse or are of unsupported types are only named in the header paragraph.
import { simpleParser, type AddressObject, type Attachment } from 'mailparser';
import { htmlToMarkdown } from './html-to-markdown.ts';
import { markdownToBlocks } from './markdown-blocks.ts';
import { textToBlocks } from './parse-text.ts';
import { ParseError, type Block, type ImageAsset, type ParsedDocument, type ParseInput } from './types.ts';

export interface EmlOptions {
  /** Parses one attachment (e.g. parseDocument at depth + 1); absent -> attachments are not opened. */
  parseAttachment?: (input: ParseInput) => Promise<ParsedDocument>;
}

function addresses(a: AddressObject | AddressObject[] | undefined): string {
  if (!a) return '';
  return (Array.isArray(a) ? a : [a]).map((x) => x.text).join(', ');
}

function attachmentName(att: Attachment, i: number): string {
  if (att.filename) return att.filename.replace(/[\r\n]/g, ' ');
  if (att.contentType === 'message/rfc822') return `message-${i + 1}.eml`;
  const ext = att.contentType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
  return `attachment-${i + 1}.${ext}`;
}

/** Parse an .eml message. Throws ParseError 415 `unreadable_document` when mailparser fails. */
export async function parseEml(data: Buffer, opts: EmlOptions = {}): Promise<ParsedDocument> {
  let mail;
  try {
    mail = await simpleParser(data, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `The e-mail could not be read: ${(err as Error).message}`);
  }
  const subject = mail.subject?.replace(/\s+/g, ' ').trim() || undefined;
  const images: ImageAsset[] = [];
  const byCid = new Map<string, string>();
  const names = mail.attachments.map(attachmentName);
  mail.attachments.forEach((att, i) => {
    if (!att.contentType.startsWith('image/')) return;
    images.push({ name: names[i], mediaType: att.contentType, data: att.content, page: 1 });
    if (att.cid) byCid.set(att.cid.replace(/^<|>$/g, ''), names[i]);
  });

  const blocks: Block[] = [];
  if (subject) blocks.push({ kind: 'heading', text: subject, level: 1, page: 1 });
  const header = [
    ['From', addresses(mail.from)], ['To', addresses(mail.to)], ['Cc', addresses(mail.cc)],
    ['Date', mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString().replace('.000Z', 'Z') : ''],
    ['Attachments', names.filter((_, i) => !mail.attachments[i].related).join(', ')],
  ].filter(([, v]) => v).map(([k, v]) => `${k}: ${v}`);
  if (header.length) blocks.push({ kind: 'paragraph', text: header.join('\n'), page: 1 });

  let imageRefs = 0;
  if (typeof mail.html === 'string' && mail.html.trim()) {
    const converted = htmlToMarkdown(mail.html, {
      assetForSrc: (src) => (src.startsWith('cid:') ? byCid.get(src.slice(4)) : undefined),
    });
    images.push(...converted.images);
    imageRefs = converted.imageRefs;
    blocks.push(...markdownToBlocks(converted.markdown).filter((b) => !(b.kind === 'heading' && b.text === subject)));
  } else if (mail.text) {
    blocks.push(...textToBlocks(mail.text));
  }

  let pages = 1;
  for (let i = 0; i < mail.attachments.length; i++) {
    const att = mail.attachments[i];
    const name = names[i];
    if (att.contentType.startsWith('image/')) {
      if (!att.related) blocks.push({ kind: 'image', text: `[IMAGE: ${name}]`, page: 1, assetName: name });
      continue;
    }
    if (!opts.parseAttachment || att.related) continue;
    let child: ParsedDocument;
    try {
      child = await opts.parseAttachment({ data: att.content, filename: name, mediaType: att.contentType });
    } catch (err) {
      if (err instanceof ParseError) continue; // named in the header paragraph; nothing readable inside
      throw err;
    }
    const offset = pages;
    const prefix = `${name.replace(/[^\w.-]+/g, '_')}-`;
    blocks.push({ kind: 'heading', text: `Attachment: ${name}`, level: 2, page: offset + 1 });
    for (const b of child.blocks) {
      blocks.push({
        ...b,
        page: b.page + offset,
        ...(b.kind === 'heading' ? { level: Math.min((b.level ?? 1) + 2, 6) } : {}),
        ...(b.kind === 'image' && b.assetName ? { assetName: prefix + b.assetName, text: `[IMAGE: ${prefix}${b.assetName}]` } : {}),
      });
    }
    for (const img of child.images) images.push({ ...img, name: prefix + img.name, page: img.page + offset });
    imageRefs += child.imageCount ?? child.images.length;
    pages += child.pages;
  }
  const imageBlocks = blocks.filter((b) => b.kind === 'image').length;
  return { title: subject, pages, blocks, images, imageCount: Math.max(images.length, imageRefs, imageBlocks) };
}
