// PPTX parser: one page per slide, in the order of the presentation's slide list (ppt/presentation.xml
// p:sldIdLst, not the part names). Each slide starts with a level-1 heading — its title placeholder's
// text, or "Slide N" when it has none, so chunks never mix two slides — followed by its text boxes,
// lists, tables, charts and pictures (pptx-slide.ts). Speaker notes follow under a level-2 "Notes"
// heading. Hidden slides (show="0") are skipped. Pictures become assets named after their media part.
// Title: docProps dc:title, else the first slide's title.
import { readRels } from './ooxml-parts.ts';
import { slideContent, type SlideContext } from './pptx-slide.ts';
import type { Block, ImageAsset, ParsedDocument } from './types.ts';
import { ParseError } from './types.ts';
import { attr, child, children, openZip, packageTitle, readXml, relAttr } from './xml-dom.ts';

/** Parse a .pptx presentation. Throws ParseError 415 when the package has no presentation part. */
export async function parsePptx(data: Buffer): Promise<ParsedDocument> {
  const zip = await openZip(data, 'PPTX');
  const presentation = await readXml(zip, 'ppt/presentation.xml');
  if (!presentation) throw new ParseError(415, 'unreadable_document', 'The PPTX package has no ppt/presentation.xml.');
  const presRels = await readRels(zip, 'ppt/presentation.xml');
  const slidePaths = children(child(presentation.documentElement ?? undefined, 'sldIdLst'), 'sldId')
    .map((s) => presRels.get(relAttr(s, 'id') ?? ''))
    .filter((r) => r && !r.external && r.type === 'slide')
    .map((r) => r!.target);

  const assets = new Map<string, ImageAsset>();
  const blocks: Block[] = [];
  let firstTitle: string | undefined;
  let page = 0;
  for (const path of slidePaths) {
    const slide = await readXml(zip, path);
    if (!slide || attr(slide.documentElement ?? undefined, 'show') === '0') continue;
    page++;
    const rels = await readRels(zip, path);
    const ctx: SlideContext = { zip, rels, page, assets };
    const content = await slideContent(slide.documentElement ?? undefined, ctx);
    firstTitle ??= content.title;
    blocks.push({ kind: 'heading', text: content.title ?? `Slide ${page}`, level: 1, page }, ...content.blocks);
    const notesRel = [...rels.values()].find((r) => r.type === 'notesSlide' && !r.external);
    const notesDoc = notesRel ? await readXml(zip, notesRel.target).catch(() => undefined) : undefined;
    if (notesDoc) {
      const notesCtx: SlideContext = { zip, rels: await readRels(zip, notesRel!.target), page, assets, notes: true };
      const notes = (await slideContent(notesDoc.documentElement ?? undefined, notesCtx)).blocks.filter((b) => b.kind !== 'image');
      if (notes.length) blocks.push({ kind: 'heading', text: 'Notes', level: 2, page }, ...notes);
    }
  }
  const title = (await packageTitle(zip, 'docProps/core.xml')) ?? firstTitle;
  return { title, pages: Math.max(1, page), blocks, images: [...assets.values()] };
}
