// Small XML layer for the package formats (PPTX, XLSX charts, OpenDocument, EPUB): opens a ZIP with
// jszip, parses its XML parts with @xmldom/xmldom, and offers namespace-prefix-agnostic helpers
// (elements are matched by local name, so `a:t`, `text:p` or `dc:title` are found whatever prefix a
// producer chose). Failures become ParseError(415, 'unreadable_document').
import { DOMParser, type Document as XmlDocument, type Element as XmlElement, type Node as XmlNode } from '@xmldom/xmldom';
import JSZip from 'jszip';
import { ParseError } from './types.ts';

export type { XmlDocument, XmlElement, XmlNode };

/** DOM nodeType values (DOM Standard, Node.nodeType). */
const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

/** Open a ZIP package; throws ParseError 415 `unreadable_document` naming `label` (e.g. "PPTX"). */
export async function openZip(data: Buffer, label: string): Promise<JSZip> {
  try {
    return await JSZip.loadAsync(data);
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `The ${label} package could not be opened: ${(err as Error).message}`);
  }
}

/** Parse an XML string; throws ParseError 415 on malformed XML. */
export function parseXml(xml: string, what: string): XmlDocument {
  try {
    return new DOMParser({ onError: (level, msg) => { if (level === 'fatalError') throw new Error(msg); } })
      .parseFromString(xml, 'text/xml');
  } catch (err) {
    throw new ParseError(415, 'unreadable_document', `${what} is not well-formed XML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Parse the ZIP entry `path` as XML; undefined when the entry does not exist. */
export async function readXml(zip: JSZip, path: string): Promise<XmlDocument | undefined> {
  const file = zip.file(path);
  if (!file) return undefined;
  return parseXml(await file.async('string'), path);
}

/** Element children of `node`, optionally only those with local name `name`. */
export function children(node: XmlNode | null | undefined, name?: string): XmlElement[] {
  const out: XmlElement[] = [];
  if (!node) return out;
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === ELEMENT_NODE && (!name || (c as XmlElement).localName === name)) out.push(c as XmlElement);
  }
  return out;
}

/** First element child named `name`. */
export function child(node: XmlNode | null | undefined, name: string): XmlElement | undefined {
  return children(node, name)[0];
}

/** All descendant elements with local name `name`, in document order. */
export function descendants(node: XmlNode | null | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (n: XmlNode) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== ELEMENT_NODE) continue;
      if ((c as XmlElement).localName === name) out.push(c as XmlElement);
      walk(c);
    }
  };
  if (node) walk(node);
  return out;
}

/** First descendant named `name` (depth-first, document order). */
export function descendant(node: XmlNode | null | undefined, name: string): XmlElement | undefined {
  if (!node) return undefined;
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== ELEMENT_NODE) continue;
    if ((c as XmlElement).localName === name) return c as XmlElement;
    const found = descendant(c, name);
    if (found) return found;
  }
  return undefined;
}

/** Attribute by local name regardless of its prefix (`r:id`, `xlink:href`, `table:style-name`). */
export function attr(el: XmlElement | undefined, localName: string): string | undefined {
  if (!el) return undefined;
  const attrs = el.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (a && (a.localName === localName || a.name === localName)) return a.value;
  }
  return undefined;
}

/**
 * An OOXML relationship reference (`r:id`, `r:embed`, `r:dm`): the attribute with this local name in
 * the officeDocument relationships namespace, whatever its prefix (a plain `id` is a different thing).
 */
export function relAttr(el: XmlElement | undefined, localName: string): string | undefined {
  if (!el) return undefined;
  const attrs = el.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs.item(i);
    if (a && a.localName === localName && (a.namespaceURI ?? '').endsWith('/relationships')) return a.value;
  }
  return undefined;
}

/** Concatenated text content of `node` (text and CDATA), whitespace untouched. */
export function textOf(node: XmlNode | null | undefined): string {
  if (!node) return '';
  if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) return node.nodeValue ?? '';
  let out = '';
  for (let c = node.firstChild; c; c = c.nextSibling) out += textOf(c);
  return out;
}

/** True for text / CDATA nodes. */
export function isText(node: XmlNode): boolean {
  return node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE;
}

/** True for element nodes. */
export function isElement(node: XmlNode): node is XmlElement {
  return node.nodeType === ELEMENT_NODE;
}

/** Whitespace-collapsed, trimmed text. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Resolve a relative package path (`../media/a.png` against `ppt/slides/slide1.xml`). */
export function resolvePath(fromFile: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = fromFile.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', tif: 'image/tiff',
  tiff: 'image/tiff', svg: 'image/svg+xml', webp: 'image/webp', emf: 'image/x-emf', wmf: 'image/x-wmf',
};

/** Image media type from a file name's extension; undefined for non-image names. */
export function imageMediaType(name: string): string | undefined {
  return IMAGE_TYPES[name.slice(name.lastIndexOf('.') + 1).toLowerCase()];
}

/** Dublin Core title of an OOXML `docProps/core.xml` or an ODF `meta.xml` (first non-empty dc:title). */
export async function packageTitle(zip: JSZip, path: string): Promise<string | undefined> {
  const doc = await readXml(zip, path).catch(() => undefined);
  return squash(textOf(descendant(doc, 'title'))) || undefined;
}
