// OpenDocument content -> blocks, shared by the ODT, ODS and ODP parsers. Handles the text model of
// ODF 1.2+: text:h (outline level -> heading level), text:p (paragraph; a paragraph styled "Title" /
// "Subtitle" is a level-1 / level-2 heading), text:list (nested items keep their indentation),
// table:table (GFM table; covered cells empty, repeated cells expanded up to a cap), text:section and
// frames' text boxes (descended into), draw:image (an `[IMAGE: name]` block with its bytes from the
// package's Pictures/), text:soft-page-break (advances the page counter) and footnotes (their text
// follows the paragraph that cites them). Tables of contents and indexes are skipped (they repeat the
// headings); annotations and tracked deletions too.
import type JSZip from 'jszip';
import { gfmTable } from './markdown-blocks.ts';
import type { Block, ImageAsset } from './types.ts';
import { attr, child, children, descendants, imageMediaType, isElement, isText, type XmlDocument, type XmlElement } from './xml-dom.ts';

/** Repeats beyond this are not expanded (spreadsheets repeat empty rows/columns a million times). */
const MAX_REPEAT = 1000;

export interface OdfContext {
  /** Current page (ODT: advanced by soft page breaks). */
  page: number;
  /** Paragraph style name -> heading level, from automatic styles whose parent is Title/Subtitle/Heading_20_N. */
  headingStyles: Map<string, number>;
  /** Package picture bytes by path (Pictures/...), preloaded so the walk stays synchronous. */
  pictures: Map<string, Buffer>;
  /** Assets referenced so far, by package path. */
  assets: Map<string, ImageAsset>;
}

const SKIP = new Set([
  'table-of-content', 'alphabetical-index', 'illustration-index', 'table-index', 'object-index', 'user-index',
  'bibliography', 'annotation', 'annotation-end', 'tracked-changes', 'sequence-decls', 'variable-decls',
  'user-field-decls', 'forms', 'note-citation', 'table-columns', 'table-column', 'table-column-group', 'scripts',
]);

/** Heading levels implied by paragraph style names (automatic styles inherit from Title, Heading N...). */
export function headingStylesOf(doc: XmlDocument | undefined): Map<string, number> {
  const out = new Map<string, number>();
  const levelOf = (name: string | undefined): number | undefined => {
    if (!name) return undefined;
    if (name === 'Title') return 1;
    if (name === 'Subtitle') return 2;
    const m = /^Heading_20_(\d)$/.exec(name);
    return m ? Number(m[1]) : undefined;
  };
  for (const style of descendants(doc, 'style')) {
    const name = attr(style, 'name');
    const level = levelOf(name) ?? levelOf(attr(style, 'parent-style-name'));
    if (name && level) out.set(name, level);
  }
  return out;
}

/** Preload the package's pictures (only image types) for synchronous lookup. */
export async function loadPictures(zip: JSZip): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const name of Object.keys(zip.files)) {
    if (!zip.files[name].dir && imageMediaType(name) && !name.startsWith('Thumbnails/')) out.set(name, await zip.files[name].async('nodebuffer'));
  }
  return out;
}

interface Inline {
  text: string;
  notes: string[];
  images: Block[];
  pageBreaks: number;
}

function imageBlock(image: XmlElement, frame: XmlElement | undefined, ctx: OdfContext): Block | undefined {
  const href = (attr(image, 'href') ?? '').replace(/^\.\//, '');
  const data = ctx.pictures.get(href);
  const mediaType = imageMediaType(href);
  if (!href || !data || !mediaType) return undefined;
  const name = href.slice(href.lastIndexOf('/') + 1);
  if (!ctx.assets.has(href)) {
    const alt = (frame ? child(frame, 'desc') ?? child(frame, 'title') : undefined)?.textContent?.trim() || undefined;
    ctx.assets.set(href, { name, mediaType, data, alt, page: ctx.page });
  }
  return { kind: 'image', text: `[IMAGE: ${name}]`, page: ctx.page, assetName: name };
}

/** Inline content of a paragraph/heading: text with spaces/tabs/breaks, footnotes and frames set aside. */
function inline(node: XmlElement, ctx: OdfContext, acc: Inline = { text: '', notes: [], images: [], pageBreaks: 0 }): Inline {
  for (let n = node.firstChild; n; n = n.nextSibling) {
    if (isText(n)) {
      acc.text += (n.nodeValue ?? '').replace(/[\r\n\t]+/g, ' ');
      continue;
    }
    if (!isElement(n) || SKIP.has(n.localName ?? '')) continue;
    switch (n.localName) {
      case 's':
        acc.text += ' '.repeat(Math.min(Number(attr(n, 'c') ?? '1') || 1, 100));
        break;
      case 'tab':
        acc.text += '\t';
        break;
      case 'line-break':
        acc.text += '\n';
        break;
      case 'soft-page-break':
        acc.pageBreaks++;
        break;
      case 'note': {
        const body = child(n, 'note-body');
        const text = body ? odfBlocks(body, { ...ctx }).map((b) => b.text).join(' ') : '';
        if (text.trim()) acc.notes.push(text.trim());
        break;
      }
      case 'frame': {
        const img = child(n, 'image');
        const block = img ? imageBlock(img, n, ctx) : undefined;
        if (block) acc.images.push(block);
        const box = child(n, 'text-box');
        if (box) acc.images.push(...odfBlocks(box, ctx));
        break;
      }
      default:
        inline(n, ctx, acc);
    }
  }
  return acc;
}

/** Cell rows of a table:table (header rows, row groups included), with repeats and covered cells. */
export function tableRows(table: XmlElement, ctx: OdfContext, cellText?: (cell: XmlElement) => string): string[][] {
  const rows: string[][] = [];
  const text = cellText ?? ((cell: XmlElement) => odfBlocks(cell, ctx).map((b) => b.text.replace(/^[-*] /gm, '')).join(' '));
  const walk = (el: XmlElement) => {
    for (const c of children(el)) {
      if (c.localName === 'table-row') {
        const cells: string[] = [];
        for (const cell of children(c)) {
          if (cell.localName !== 'table-cell' && cell.localName !== 'covered-table-cell') continue;
          const value = cell.localName === 'covered-table-cell' ? '' : text(cell);
          const repeat = Math.min(Number(attr(cell, 'number-columns-repeated') ?? '1') || 1, MAX_REPEAT);
          for (let i = 0; i < repeat; i++) cells.push(value);
        }
        const repeat = Math.min(Number(attr(c, 'number-rows-repeated') ?? '1') || 1, MAX_REPEAT);
        for (let i = 0; i < repeat; i++) rows.push(cells);
      } else if (['table-header-rows', 'table-rows', 'table-row-group'].includes(c.localName ?? '')) {
        walk(c);
      }
    }
  };
  walk(table);
  return rows;
}

function listBlock(list: XmlElement, ctx: OdfContext, depth = 0): string[] {
  const lines: string[] = [];
  for (const item of children(list)) {
    if (item.localName !== 'list-item' && item.localName !== 'list-header') continue;
    let first = true;
    for (const c of children(item)) {
      if (c.localName === 'list') {
        lines.push(...listBlock(c, ctx, depth + 1));
        continue;
      }
      const text = odfBlocks(c, ctx, true).map((b) => b.text).join(' ').replace(/\s*\n\s*/g, ' ').trim();
      if (!text) continue;
      lines.push(`${'  '.repeat(Math.min(depth, 4))}${first ? '- ' : '  '}${text}`);
      first = false;
    }
  }
  return lines;
}

/**
 * Blocks of an ODF container element (office:text, a table cell, a text box, a note body...).
 * `self` = true treats `node` itself as the single element to convert.
 */
export function odfBlocks(node: XmlElement, ctx: OdfContext, self = false): Block[] {
  const blocks: Block[] = [];
  for (const el of self ? [node] : children(node)) {
    if (SKIP.has(el.localName ?? '')) continue;
    switch (el.localName) {
      case 'h':
      case 'p': {
        const parts = inline(el, ctx);
        const text = parts.text.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').trim();
        const styleLevel = ctx.headingStyles.get(attr(el, 'style-name') ?? '');
        const level = el.localName === 'h' ? Math.min(Number(attr(el, 'outline-level') ?? '1') || 1, 6) : styleLevel;
        if (text) blocks.push(level ? { kind: 'heading', text: text.replace(/\s+/g, ' '), level, page: ctx.page } : { kind: 'paragraph', text, page: ctx.page });
        blocks.push(...parts.images);
        for (const note of parts.notes) blocks.push({ kind: 'paragraph', text: note, page: ctx.page });
        ctx.page += parts.pageBreaks;
        break;
      }
      case 'list': {
        const lines = listBlock(el, ctx);
        const prev = blocks.at(-1);
        // Producers split one visual list into several text:list elements (continued numbering).
        if (lines.length && prev?.kind === 'list' && prev.page === ctx.page) prev.text += `\n${lines.join('\n')}`;
        else if (lines.length) blocks.push({ kind: 'list', text: lines.join('\n'), page: ctx.page });
        break;
      }
      case 'table': {
        const rows = tableRows(el, ctx).filter((r) => r.some((c) => c.trim()));
        if (rows.length) blocks.push({ kind: 'table', text: gfmTable(rows[0], rows.slice(1)), page: ctx.page });
        break;
      }
      case 'soft-page-break':
        ctx.page++;
        break;
      case 'frame': {
        const img = child(el, 'image');
        const block = img ? imageBlock(img, el, ctx) : undefined;
        if (block) blocks.push(block);
        for (const c of children(el)) if (c.localName === 'text-box' || c.localName === 'table') blocks.push(...odfBlocks(c, ctx, c.localName === 'table'));
        break;
      }
      default:
        // section, text-box, custom-shape, g, list-item content, deletion-free wrappers...
        blocks.push(...odfBlocks(el, ctx));
    }
  }
  return blocks;
}
