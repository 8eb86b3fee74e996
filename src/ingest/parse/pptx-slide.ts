// One PresentationML slide (or notes page) -> blocks. Walks the shape tree in document order: text
// shapes give paragraphs, or list items when bulleted (explicit buChar/buAutoNum, or the body/content
// placeholders whose bullets come from the master), tables (a:tbl) become GFM tables, charts and
// SmartArt diagrams are read from their parts, pictures become `[IMAGE: name]` blocks whose bytes are
// collected once per media part. Footer, date and slide-number placeholders are skipped. The title
// placeholder's text is returned separately: the caller makes it the slide's heading.
import type JSZip from 'jszip';
import { gfmTable } from './markdown-blocks.ts';
import { chartBlocks, type Relationship } from './ooxml-parts.ts';
import type { Block, ImageAsset } from './types.ts';
import { attr, child, children, descendant, descendants, imageMediaType, isElement, readXml, relAttr, squash, textOf, type XmlElement } from './xml-dom.ts';

export interface SlideContext {
  zip: JSZip;
  rels: Map<string, Relationship>;
  page: number;
  /** Shared across slides: media part path -> asset (one asset per picture file). */
  assets: Map<string, ImageAsset>;
  /** A notes page: its body text is prose, not bullets. */
  notes?: boolean;
}

export interface SlideContent {
  title?: string;
  blocks: Block[];
}

const SKIPPED_PLACEHOLDERS = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);
const BULLETED_PLACEHOLDERS = new Set(['body', 'obj']);

/** Text of one a:p: runs, fields and line breaks. */
function paragraphText(p: XmlElement): string {
  let out = '';
  for (let n = p.firstChild; n; n = n.nextSibling) {
    if (!isElement(n)) continue;
    if (n.localName === 'r' || n.localName === 'fld') out += textOf(child(n, 't'));
    else if (n.localName === 'br') out += '\n';
  }
  return out.replace(/[ \t\u00a0]+/g, ' ').trim();
}

/** Placeholder type of a shape: 'title', 'body', ... ; 'obj' for an untyped placeholder; undefined otherwise. */
function placeholderType(shape: XmlElement): string | undefined {
  const nv = children(shape).find((c) => (c.localName ?? '').startsWith('nv'));
  const ph = descendant(child(nv, 'nvPr'), 'ph');
  return ph ? (attr(ph, 'type') ?? 'obj') : undefined;
}

/** Blocks of a text body: runs of bulleted paragraphs become one list block, others paragraphs. */
function textBodyBlocks(body: XmlElement, bulletedByDefault: boolean, page: number): Block[] {
  const blocks: Block[] = [];
  let items: string[] = [];
  const flush = () => {
    if (items.length) blocks.push({ kind: 'list', text: items.join('\n'), page });
    items = [];
  };
  for (const p of children(body, 'p')) {
    const text = paragraphText(p);
    if (!text) continue;
    const pPr = child(p, 'pPr');
    const explicit = child(pPr, 'buChar') ?? child(pPr, 'buAutoNum');
    const bulleted = explicit ? true : child(pPr, 'buNone') ? false : bulletedByDefault;
    if (!bulleted) {
      flush();
      blocks.push({ kind: 'paragraph', text, page });
      continue;
    }
    const level = Math.min(Number(attr(pPr, 'lvl') ?? '0') || 0, 4);
    const marker = child(pPr, 'buAutoNum') ? '1.' : '-';
    items.push(`${'  '.repeat(level)}${marker} ${text.replace(/\n/g, ' ')}`);
  }
  flush();
  return blocks;
}

/** A DrawingML table as a GFM table (merged continuation cells left empty). */
export function tableBlock(tbl: XmlElement, page: number): Block | undefined {
  const rows: string[][] = [];
  for (const tr of children(tbl, 'tr')) {
    const cells = children(tr, 'tc').map((tc) =>
      attr(tc, 'hMerge') === '1' || attr(tc, 'vMerge') === '1'
        ? ''
        : children(child(tc, 'txBody'), 'p').map(paragraphText).filter(Boolean).join(' '),
    );
    rows.push(cells);
  }
  if (!rows.length || !rows.some((r) => r.some((c) => c.trim()))) return undefined;
  return { kind: 'table', text: gfmTable(rows[0], rows.slice(1)), page };
}

async function pictureBlock(pic: XmlElement, ctx: SlideContext): Promise<Block | undefined> {
  const embed = relAttr(descendant(pic, 'blip'), 'embed');
  const rel = embed ? ctx.rels.get(embed) : undefined;
  if (!rel || rel.external) return undefined;
  const name = rel.target.slice(rel.target.lastIndexOf('/') + 1);
  if (!ctx.assets.has(rel.target)) {
    const file = ctx.zip.file(rel.target);
    const mediaType = imageMediaType(name);
    if (!file || !mediaType) return undefined;
    const alt = squash(attr(descendant(pic, 'cNvPr'), 'descr') ?? '') || undefined;
    ctx.assets.set(rel.target, { name, mediaType, data: await file.async('nodebuffer'), alt, page: ctx.page });
  }
  return { kind: 'image', text: `[IMAGE: ${name}]`, page: ctx.page, assetName: name };
}

/** SmartArt: the texts of the diagram's data model points, as a list. */
async function diagramBlocks(frame: XmlElement, ctx: SlideContext): Promise<Block[]> {
  const dm = relAttr(descendant(frame, 'relIds'), 'dm');
  const rel = dm ? ctx.rels.get(dm) : undefined;
  if (!rel) return [];
  const doc = await readXml(ctx.zip, rel.target).catch(() => undefined);
  const items = descendants(doc, 'pt')
    .map((pt) => squash(descendants(child(pt, 't'), 't').map((t) => textOf(t)).join(' ')))
    .filter(Boolean);
  return items.length ? [{ kind: 'list', text: items.map((t) => `- ${t}`).join('\n'), page: ctx.page }] : [];
}

async function shapeBlocks(shape: XmlElement, ctx: SlideContext, out: SlideContent): Promise<void> {
  switch (shape.localName) {
    case 'sp': {
      const type = placeholderType(shape);
      if (type && SKIPPED_PLACEHOLDERS.has(type)) return;
      const body = child(shape, 'txBody');
      if (!body) return;
      if (type && TITLE_PLACEHOLDERS.has(type) && !out.title) {
        out.title = squash(children(body, 'p').map(paragraphText).join(' ')) || undefined;
        if (out.title) return;
      }
      out.blocks.push(...textBodyBlocks(body, !ctx.notes && type !== undefined && BULLETED_PLACEHOLDERS.has(type), ctx.page));
      return;
    }
    case 'grpSp':
      for (const c of children(shape)) await shapeBlocks(c, ctx, out);
      return;
    case 'pic': {
      const block = await pictureBlock(shape, ctx);
      if (block) out.blocks.push(block);
      return;
    }
    case 'graphicFrame': {
      const tbl = descendant(shape, 'tbl');
      if (tbl) {
        const block = tableBlock(tbl, ctx.page);
        if (block) out.blocks.push(block);
        return;
      }
      const chartId = relAttr(descendant(shape, 'chart'), 'id');
      const chartRel = chartId ? ctx.rels.get(chartId) : undefined;
      if (chartRel) {
        out.blocks.push(...(await chartBlocks(ctx.zip, chartRel.target, ctx.page)));
        return;
      }
      out.blocks.push(...(await diagramBlocks(shape, ctx)));
      return;
    }
    case 'AlternateContent': {
      const choice = child(shape, 'Fallback') ?? child(shape, 'Choice');
      for (const c of children(choice)) await shapeBlocks(c, ctx, out);
      return;
    }
    default:
  }
}

/** Title and content blocks of a slide or notes part (root element p:sld / p:notes). */
export async function slideContent(root: XmlElement | undefined, ctx: SlideContext): Promise<SlideContent> {
  const out: SlideContent = { blocks: [] };
  const tree = descendant(child(root, 'cSld'), 'spTree');
  for (const shape of children(tree)) await shapeBlocks(shape, ctx, out);
  return out;
}
