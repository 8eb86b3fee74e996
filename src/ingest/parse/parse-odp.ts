// ODP parser (OpenDocument presentation): one page per draw:page, in document order. A slide starts
// with a level-1 heading — the text of its presentation:class="title" frame, else "Slide N" — followed
// by its other frames (text boxes, outlines as lists, tables, images) via odf-blocks.ts; speaker notes
// (presentation:notes) follow under a level-2 "Notes" heading. Footer, date and page-number frames are
// skipped. Title: meta.xml dc:title, else the first slide title.
import { odfBlocks } from './odf-blocks.ts';
import { openOdf } from './odf-package.ts';
import type { Block, ParsedDocument } from './types.ts';
import { attr, children, squash, textOf } from './xml-dom.ts';

const SKIPPED_CLASSES = new Set(['page-number', 'footer', 'header', 'date-time', 'page']);

/** Parse an .odp file. Throws ParseError 422 `encrypted_document`, 415 `unreadable_document`. */
export async function parseOdp(data: Buffer): Promise<ParsedDocument> {
  const pkg = await openOdf(data, 'presentation', 'ODP');
  const slides = children(pkg.body, 'page');
  const blocks: Block[] = [];
  let firstTitle: string | undefined;
  slides.forEach((slide, i) => {
    const page = i + 1;
    pkg.ctx.page = page;
    let title: string | undefined;
    const content: Block[] = [];
    for (const el of children(slide)) {
      const cls = attr(el, 'class');
      if (cls && SKIPPED_CLASSES.has(cls)) continue;
      if (el.localName === 'notes') continue;
      if (!title && (cls === 'title' || cls === 'Title')) {
        title = squash(textOf(el)) || undefined;
        if (title) continue;
      }
      content.push(...odfBlocks(el, pkg.ctx, true).map((b) => (cls === 'outline' && b.kind === 'paragraph' ? { ...b, kind: 'list' as const, text: `- ${b.text}` } : b)));
    }
    firstTitle ??= title;
    blocks.push({ kind: 'heading', text: title ?? `Slide ${page}`, level: 1, page }, ...content);
    const notes = children(slide, 'notes').flatMap((n) =>
      children(n).filter((f) => attr(f, 'class') === 'notes').flatMap((f) => odfBlocks(f, pkg.ctx, true)),
    ).filter((b) => b.kind !== 'image');
    if (notes.length) blocks.push({ kind: 'heading', text: 'Notes', level: 2, page }, ...notes);
  });
  return {
    title: pkg.title ?? firstTitle,
    pages: Math.max(1, slides.length),
    blocks,
    images: [...pkg.ctx.assets.values()],
  };
}
