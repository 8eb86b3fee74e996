// Opening an OpenDocument package (ODT/ODS/ODP) for the format parsers: refuses password-protected
// packages (META-INF/manifest.xml lists manifest:encryption-data for encrypted parts), parses
// content.xml, reads meta.xml (dc:title, the cached page count) and prepares the conversion context
// (heading styles from content.xml's automatic styles plus styles.xml, pictures).
import type JSZip from 'jszip';
import { headingStylesOf, loadPictures, type OdfContext } from './odf-blocks.ts';
import { ParseError } from './types.ts';
import { attr, descendant, openZip, readXml, squash, textOf, type XmlElement } from './xml-dom.ts';

export interface OdfPackage {
  zip: JSZip;
  /** office:body's format element: office:text, office:spreadsheet or office:presentation. */
  body: XmlElement;
  ctx: OdfContext;
  title?: string;
  /** meta:document-statistic meta:page-count, when the producer cached it. */
  pageCount?: number;
}

/**
 * Open an ODF package. `bodyName` is the office:body child to return ('text', 'spreadsheet',
 * 'presentation'); `label` names the format in messages.
 * Throws ParseError 422 `encrypted_document` for a password-protected package, 415
 * `unreadable_document` when content.xml or the expected body is missing or malformed.
 */
export async function openOdf(data: Buffer, bodyName: string, label: string): Promise<OdfPackage> {
  const zip = await openZip(data, label);
  const manifest = await zip.file('META-INF/manifest.xml')?.async('string');
  if (manifest && /<(?:\w+:)?encryption-data[\s>]/.test(manifest)) {
    throw new ParseError(422, 'encrypted_document', `The ${label} document is password-protected; upload it without a password.`);
  }
  const content = await readXml(zip, 'content.xml');
  if (!content) throw new ParseError(415, 'unreadable_document', `The ${label} package has no content.xml.`);
  const body = descendant(descendant(content, 'body'), bodyName);
  if (!body) throw new ParseError(415, 'unreadable_document', `The ${label} package holds no office:${bodyName} body (wrong format?).`);
  const styles = await readXml(zip, 'styles.xml').catch(() => undefined);
  const headingStyles = new Map([...headingStylesOf(styles), ...headingStylesOf(content)]);
  const meta = await readXml(zip, 'meta.xml').catch(() => undefined);
  const title = squash(textOf(descendant(meta, 'title'))) || undefined;
  const pages = Number(attr(descendant(meta, 'document-statistic'), 'page-count') ?? NaN);
  return {
    zip,
    body,
    ctx: { page: 1, headingStyles, pictures: await loadPictures(zip), assets: new Map() },
    title,
    pageCount: Number.isFinite(pages) && pages > 0 ? pages : undefined,
  };
}
