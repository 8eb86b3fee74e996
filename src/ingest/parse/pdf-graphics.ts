// Graphics half of the PDF parser: walks a page's operator list (pdfjs `getOperatorList`) tracking the
// current transformation matrix through save/restore, `cm` and form XObjects, and collects what the
// table and figure detectors need, in PDF user space (points, y up — the same space as the text runs):
//  - straight horizontal / vertical rules: stroked lines and rectangle edges, and filled rectangles
//    thinner than 3 pt (Word and LaTeX draw table borders both ways);
//  - filled rectangles (cell shading), for completeness of the picture of the page;
//  - image placements: which image XObject (or inline image) is painted where.
// pdfjs 5 packs paths as `constructPath(paintOp, [Float32Array of DrawOPS codes + coordinates], minMax)`.
import { OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** An axis-aligned segment; for a horizontal rule y0 = y1, for a vertical one x0 = x1 (x0 ≤ x1, y0 ≤ y1). */
export interface Segment {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface ImagePlacement {
  /** pdfjs object id (page.objs / commonObjs), or null for an inline image (data in `inline`). */
  objId: string | null;
  inline?: unknown;
  /** Bounding box on the page in points. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageGraphics {
  horizontal: Segment[];
  vertical: Segment[];
  images: ImagePlacement[];
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const DRAW = { moveTo: 0, lineTo: 1, curveTo: 2, quadraticCurveTo: 3, closePath: 4 } as const;
/**
 * The operators pageGraphics reads (the switch below): every other operator of a page leaves its result
 * unchanged, so a page's operator list may carry only these (pdf-worker.ts drops the rest, most of them
 * text-showing operators with a glyph array each, before pdfjs copies the list out of its worker).
 */
export const GRAPHICS_OPS: ReadonlySet<number> = new Set<number>([
  OPS.save, OPS.restore, OPS.transform, OPS.paintFormXObjectBegin, OPS.paintFormXObjectEnd, OPS.constructPath,
  OPS.paintImageXObject, OPS.paintImageXObjectRepeat, OPS.paintInlineImageXObject,
]);
const STROKES = new Set<number>([OPS.stroke, OPS.closeStroke, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
const FILLS = new Set<number>([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);

function multiply(m: Matrix, n: Matrix): Matrix {
  // n applied first, then m (PDF: cm concatenates the new matrix before the CTM).
  return [
    n[0] * m[0] + n[1] * m[2], n[0] * m[1] + n[1] * m[3],
    n[2] * m[0] + n[3] * m[2], n[2] * m[1] + n[3] * m[3],
    n[4] * m[0] + n[5] * m[2] + m[4], n[4] * m[1] + n[5] * m[3] + m[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** A closed subpath of 4–5 points whose every edge is axis-aligned: its rectangle goes to `rects`. */
function addRect(sub: Array<[number, number]>, rects: Segment[]): void {
  if (sub.length >= 4 && sub.length <= 5) {
    const xs = sub.map((p) => p[0]);
    const ys = sub.map((p) => p[1]);
    const axisAligned = sub.every((p, i) => i === 0 || Math.abs(p[0] - sub[i - 1][0]) < 0.5 || Math.abs(p[1] - sub[i - 1][1]) < 0.5);
    if (axisAligned) rects.push({ x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) });
  }
}

/**
 * Straight pieces of a path (after the CTM) and whether each subpath is a closed 4-point rectangle.
 * (No closures are made per call: it runs once per path, tens of thousands of times in a filing.)
 */
function pathPieces(data: ArrayLike<number>, ctm: Matrix): { lines: Array<[number, number, number, number]>; rects: Segment[] } {
  const lines: Array<[number, number, number, number]> = [];
  const rects: Segment[] = [];
  let start: [number, number] | null = null;
  let cur: [number, number] | null = null;
  let sub: Array<[number, number]> = [];
  for (let i = 0; i < data.length;) {
    const op = data[i++];
    if (op === DRAW.moveTo) {
      addRect(sub, rects);
      sub = [];
      cur = start = apply(ctm, data[i], data[i + 1]);
      sub.push(cur);
      i += 2;
    } else if (op === DRAW.lineTo) {
      const p = apply(ctm, data[i], data[i + 1]);
      if (cur) lines.push([cur[0], cur[1], p[0], p[1]]);
      cur = p;
      sub.push(p);
      i += 2;
    } else if (op === DRAW.curveTo) {
      cur = apply(ctm, data[i + 4], data[i + 5]);
      sub = [];
      i += 6;
    } else if (op === DRAW.quadraticCurveTo) {
      cur = apply(ctm, data[i + 2], data[i + 3]);
      sub = [];
      i += 4;
    } else if (op === DRAW.closePath) {
      if (cur && start) lines.push([cur[0], cur[1], start[0], start[1]]);
      cur = start;
      addRect(sub, rects);
      sub = [];
    } else break; // unknown code: stop rather than misread coordinates
  }
  addRect(sub, rects);
  return { lines, rects };
}

/**
 * Rules and image placements of one page.
 * @param fnArray / argsArray  the page's operator list (pdfjs PDFPageProxy.getOperatorList())
 */
export function pageGraphics(fnArray: number[], argsArray: unknown[][]): PageGraphics {
  const out: PageGraphics = { horizontal: [], vertical: [], images: [] };
  let ctm: Matrix = IDENTITY;
  const stack: Matrix[] = [];
  const addLine = (x0: number, y0: number, x1: number, y1: number) => {
    if (Math.abs(y0 - y1) < 0.8 && Math.abs(x1 - x0) >= 2) {
      out.horizontal.push({ x0: Math.min(x0, x1), x1: Math.max(x0, x1), y0: (y0 + y1) / 2, y1: (y0 + y1) / 2 });
    } else if (Math.abs(x0 - x1) < 0.8 && Math.abs(y1 - y0) >= 2) {
      out.vertical.push({ x0: (x0 + x1) / 2, x1: (x0 + x1) / 2, y0: Math.min(y0, y1), y1: Math.max(y0, y1) });
    }
  };
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[];
    switch (fn) {
      case OPS.save: stack.push(ctm); break;
      case OPS.restore: ctm = stack.pop() ?? IDENTITY; break;
      case OPS.transform: ctm = multiply(ctm, args as Matrix); break;
      case OPS.paintFormXObjectBegin: {
        stack.push(ctm);
        const m = args[0] as Matrix | null;
        if (m && m.length === 6) ctm = multiply(ctm, [...m] as Matrix);
        break;
      }
      case OPS.paintFormXObjectEnd: ctm = stack.pop() ?? IDENTITY; break;
      case OPS.constructPath: {
        const paint = args[0] as number;
        const data = (args[1] as ArrayLike<number>[] | undefined)?.[0];
        if (!data || (!STROKES.has(paint) && !FILLS.has(paint))) break;
        const { lines, rects } = pathPieces(data, ctm);
        if (STROKES.has(paint)) for (const l of lines) addLine(...l);
        if (FILLS.has(paint)) {
          for (const r of rects) {
            const w = r.x1 - r.x0;
            const h = r.y1 - r.y0;
            if (h < 3 && w >= 2) addLine(r.x0, (r.y0 + r.y1) / 2, r.x1, (r.y0 + r.y1) / 2);
            else if (w < 3 && h >= 2) addLine((r.x0 + r.x1) / 2, r.y0, (r.x0 + r.x1) / 2, r.y1);
          }
        }
        break;
      }
      case OPS.paintImageXObject:
      case OPS.paintImageXObjectRepeat:
      case OPS.paintInlineImageXObject: {
        const corners = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)];
        const xs = corners.map((c) => c[0]);
        const ys = corners.map((c) => c[1]);
        const inline = fn === OPS.paintInlineImageXObject;
        out.images.push({
          objId: inline ? null : String(args[0]), inline: inline ? args[0] : undefined,
          x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys),
        });
        break;
      }
      default: break;
    }
  }
  return out;
}
