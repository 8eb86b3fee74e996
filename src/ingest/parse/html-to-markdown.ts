// HTML -> Markdown for the HTML and DOCX parsers (mammoth emits HTML). The DOM is parsed with domino
// (the DOM turndown itself uses in Node), page chrome is removed (scripts, styles, navigation, menus,
// edit links, citation markers, link targets), the main content element is kept when the page marks one, images
// become `[IMAGE: name]` references (data: URIs are decoded into assets; nothing is ever fetched), and
// turndown converts the rest. Every table becomes a GFM table: turndown-plugin-gfm keeps header-less
// tables as raw HTML, so tables have their own rule here (first row = header, cells flattened to one
// line, `|` escaped, colspans repeated as empty cells).
import domino from '@mixmark-io/domino';
import TurndownService from 'turndown';
import { strikethrough } from 'turndown-plugin-gfm';
import type { ImageAsset, RemoteImageRef } from './types.ts';

/** Result of converting one HTML document. */
export interface HtmlConversion {
  markdown: string;
  /** Text of <title>, whitespace-collapsed; undefined when absent or empty. */
  title?: string;
  /** Images whose bytes were inline (data: URIs) or supplied by the caller (see `assetForSrc`). */
  images: ImageAsset[];
  /** Number of <img> elements referenced in the kept content. */
  imageRefs: number;
  /** <img> elements linking to a URL (relative or absolute), for X-Base-URL resolution. */
  remoteImages: RemoteImageRef[];
}

export interface HtmlConversionOptions {
  /** Resolve an <img src> to an already-extracted asset name (DOCX images: `asset:NAME`). */
  assetForSrc?: (src: string) => string | undefined;
}

const NOISE_SELECTORS = [
  'script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'form',
  'button', 'input', 'select', 'textarea', 'nav', 'aside', 'footer', 'head', '[role=navigation]',
  '[role=banner]', '[role=contentinfo]', '[aria-hidden=true]', '[hidden]', '.mw-editsection', '.navbox',
  '.catlinks', '.printfooter', '.mw-jump-link', '.noprint', '.navigation-not-searchable', '#toc', '.toc',
  'sup.reference', '.mw-cite-backlink', '.interlanguage-link', '[class*="dropdown"]', '.vector-menu',
  '.mw-portlet', '.sidebar', '.breadcrumb', '.breadcrumbs', '.cookie-banner', '.skip-link',
];

const MAIN_SELECTORS = ['main', '[role=main]', 'article', '#content', '#main'];

const MEDIA_EXT: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg',
  'image/bmp': 'bmp', 'image/tiff': 'tiff', 'image/x-emf': 'emf', 'image/x-wmf': 'wmf',
};

/** Name for an <img>: the basename of its URL path, else its alt text, else `image-N`. */
function imageName(src: string, alt: string, n: number): string {
  if (src && !src.startsWith('data:')) {
    const path = src.split(/[?#]/)[0];
    let base = path.slice(path.lastIndexOf('/') + 1);
    try {
      base = decodeURIComponent(base);
    } catch {
      // keep the raw basename
    }
    if (base) return base.replace(/[\]\n\r]/g, '_');
  }
  const altName = alt.replace(/\s+/g, ' ').replace(/[\]]/g, '').trim().slice(0, 80);
  return altName || `image-${n}`;
}

function cellText(service: TurndownService, cell: Element): string {
  const md = service.turndown(cell as unknown as HTMLElement);
  return md.replace(/\s*\n+\s*/g, ' ').replace(/\|/g, '\\|').trim();
}

/** GFM table from a <table> element (rows of nested tables are not counted as this table's rows). */
function tableToMarkdown(service: TurndownService, table: Element): string {
  const rows: string[][] = [];
  for (const tr of Array.from(table.querySelectorAll('tr'))) {
    if (tr.closest('table') !== table) continue;
    const cells: string[] = [];
    for (const cell of Array.from(tr.children)) {
      if (cell.nodeName !== 'TD' && cell.nodeName !== 'TH') continue;
      cells.push(cellText(service, cell));
      const span = Math.min(Number(cell.getAttribute('colspan') ?? '1') || 1, 50);
      for (let i = 1; i < span; i++) cells.push('');
    }
    if (cells.length) rows.push(cells);
  }
  if (!rows.length) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  const out = [line(rows[0]), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)];
  return `\n\n${out.join('\n')}\n\n`;
}

function makeService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
  });
  service.use(strikethrough);
  // Link targets are dropped: URLs bloat chunks and pollute lexical search; the anchor text stays.
  service.addRule('link-text', {
    filter: 'a',
    replacement: (content) => content,
  });
  service.addRule('image-ref', {
    filter: (node) => node.nodeName === 'X-IMAGE',
    replacement: (_content, node) => `[IMAGE: ${(node as HTMLElement).getAttribute('data-name')}]`,
  });
  // A bare <pre> (no <code> inside) is preformatted text: fence it like code.
  service.addRule('bare-pre', {
    filter: (node) => node.nodeName === 'PRE' && node.firstElementChild?.nodeName !== 'CODE',
    replacement: (_content, node) => {
      const text = (node.textContent ?? '').replace(/^\n/, '').replace(/\s+$/, '');
      const fence = text.includes('```') ? '~~~~' : '```';
      return `\n\n${fence}\n${text}\n${fence}\n\n`;
    },
  });
  service.addRule('gfm-table', {
    filter: 'table',
    replacement: (_content, node) => tableToMarkdown(service, node as unknown as Element),
  });
  return service;
}

/**
 * Convert an HTML document (or fragment) to Markdown. Pure CPU, no network access.
 * Data-URI images are decoded into `images`; other images keep only a name in the text.
 */
export function htmlToMarkdown(html: string, options: HtmlConversionOptions = {}): HtmlConversion {
  const document = domino.createDocument(html);
  const title = document.title?.replace(/\s+/g, ' ').trim() || undefined;
  for (const sel of NOISE_SELECTORS) {
    for (const el of Array.from(document.querySelectorAll(sel)) as Element[]) el.remove();
  }
  let root: Element = document.body ?? document.documentElement;
  for (const sel of MAIN_SELECTORS) {
    const candidate = document.querySelector(sel);
    if (candidate && (candidate.textContent ?? '').trim().length > 200) {
      root = candidate;
      break;
    }
  }
  const images: ImageAsset[] = [];
  let imageRefs = 0;
  const remoteImages: RemoteImageRef[] = [];
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    const alt = img.getAttribute('alt') ?? '';
    // Icons and spacers (declared ≤ 32 px) are decoration, not figures.
    const w = Number(img.getAttribute('width') ?? NaN);
    const h = Number(img.getAttribute('height') ?? NaN);
    if ((w > 0 && w <= 32) || (h > 0 && h <= 32)) {
      img.remove();
      continue;
    }
    imageRefs++;
    let name = options.assetForSrc?.(src);
    if (!name) {
      name = imageName(src, alt, imageRefs);
      const m = /^data:([\w/+.-]+);base64,(.*)$/s.exec(src);
      if (m) {
        const mediaType = m[1].toLowerCase();
        name = `image-${imageRefs}.${MEDIA_EXT[mediaType] ?? 'bin'}`;
        images.push({ name, mediaType, data: Buffer.from(m[2], 'base64'), alt: alt || undefined, page: 1 });
      } else if (src && !src.startsWith('data:')) {
        remoteImages.push({ name, src, alt: alt || undefined, page: 1 });
      }
    }
    const ref = document.createElement('x-image');
    ref.setAttribute('data-name', name);
    ref.textContent = name; // turndown drops blank elements before any rule runs
    img.replaceWith(ref);
  }
  const markdown = makeService().turndown(root as unknown as HTMLElement);
  return { markdown, title, images, imageRefs, remoteImages };
}
