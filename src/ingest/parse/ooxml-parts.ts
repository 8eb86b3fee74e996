// Shared OOXML (PPTX/XLSX) package plumbing: relationship parts (`_rels/*.rels`) resolve the r:id
// references between parts, and DrawingML charts (`c:chartSpace`) are rendered as text: the chart title
// as a paragraph and the cached series values as a GFM table (category column + one column per series),
// so the numbers behind a chart are searchable even though the picture is not.
import type JSZip from 'jszip';
import { gfmTable } from './markdown-blocks.ts';
import type { Block } from './types.ts';
import { attr, child, descendant, descendants, readXml, resolvePath, squash, textOf } from './xml-dom.ts';

export interface Relationship {
  /** Package path of the target part, resolved against the source part ('ppt/media/image1.png'). */
  target: string;
  /** Last segment of the relationship type URI ('slide', 'image', 'chart', 'notesSlide', ...). */
  type: string;
  external: boolean;
}

/** Relationships of `partPath` keyed by r:id (empty when the part has no .rels). */
export async function readRels(zip: JSZip, partPath: string): Promise<Map<string, Relationship>> {
  const slash = partPath.lastIndexOf('/');
  const relsPath = `${partPath.slice(0, slash + 1)}_rels/${partPath.slice(slash + 1)}.rels`;
  const doc = await readXml(zip, relsPath);
  const rels = new Map<string, Relationship>();
  for (const rel of descendants(doc, 'Relationship')) {
    const id = attr(rel, 'Id');
    const target = attr(rel, 'Target');
    if (!id || !target) continue;
    const external = attr(rel, 'TargetMode') === 'External';
    const type = (attr(rel, 'Type') ?? '').split('/').pop() ?? '';
    rels.set(id, { target: external ? target : resolvePath(partPath, target), type, external });
  }
  return rels;
}

/** Cached point values of a c:cat / c:val / c:tx element, by point index. */
function cachedPoints(el: ReturnType<typeof child>): string[] {
  const out: string[] = [];
  for (const pt of descendants(el, 'pt')) {
    const idx = Number(attr(pt, 'idx') ?? out.length);
    out[idx] = squash(textOf(child(pt, 'v')));
  }
  return out;
}

/**
 * Blocks for the chart part at `chartPath`: a paragraph "Chart: <title>" and a table of the cached
 * series data. Returns [] when the part is missing or holds no series.
 */
export async function chartBlocks(zip: JSZip, chartPath: string, page: number): Promise<Block[]> {
  const doc = await readXml(zip, chartPath).catch(() => undefined);
  const chart = descendant(doc, 'chart');
  if (!chart) return [];
  const titleEl = child(chart, 'title');
  const title = titleEl ? squash(descendants(titleEl, 't').map((t) => textOf(t)).join('')) : '';
  const series = descendants(descendant(chart, 'plotArea'), 'ser');
  const blocks: Block[] = [];
  if (title) blocks.push({ kind: 'paragraph', text: `Chart: ${title}`, page });
  if (!series.length) return blocks;
  const names = series.map((s, i) => cachedPoints(child(s, 'tx'))[0] || squash(textOf(child(s, 'tx'))) || `Series ${i + 1}`);
  const cats = series.map((s) => cachedPoints(child(s, 'cat') ?? child(s, 'xVal')));
  const vals = series.map((s) => cachedPoints(child(s, 'val') ?? child(s, 'yVal')));
  const categories = cats.find((c) => c.length) ?? [];
  const n = Math.max(categories.length, ...vals.map((v) => v.length));
  if (!n) return blocks;
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) rows.push([categories[i] ?? String(i + 1), ...vals.map((v) => v[i] ?? '')]);
  blocks.push({ kind: 'table', text: gfmTable(['Category', ...names], rows), page });
  return blocks;
}

/** Chart parts referenced by the drawing(s) of `partPath` (a worksheet), in relationship order. */
export async function drawingCharts(zip: JSZip, partPath: string): Promise<string[]> {
  const out: string[] = [];
  for (const rel of (await readRels(zip, partPath)).values()) {
    if (rel.external) continue;
    if (rel.type === 'chart') out.push(rel.target);
    if (rel.type === 'drawing') {
      for (const inner of (await readRels(zip, rel.target)).values()) if (inner.type === 'chart' && !inner.external) out.push(inner.target);
    }
  }
  return out;
}

