// The thinned operator lists (pdf-worker.ts) on real PDFs: they hold only GRAPHICS_OPS, fewer operators
// than pdfjs's own worker sends, and give pageGraphics the same rules and image placements page by page.
// A pdfjs upgrade that changes its message shapes fails the first check (the thinning stopped), never
// the parse output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { getDocument, PDFWorker } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { withNativeBuiltins } from './native-builtins.ts';
import { GRAPHICS_OPS, pageGraphics } from './pdf-graphics.ts';
import { graphicsPdfWorker } from './pdf-worker.ts';

const pdfDir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/pdf');
const PDF_WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

async function operatorLists(file: string, worker: PDFWorker): Promise<Array<{ fnArray: number[]; argsArray: unknown[][] }>> {
  const doc = await getDocument({ data: new Uint8Array(fs.readFileSync(path.join(pdfDir, file))), worker, isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
  try {
    const out = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      await page.getTextContent();
      const ops = await page.getOperatorList();
      out.push({ fnArray: ops.fnArray, argsArray: ops.argsArray as unknown[][] });
      page.cleanup();
    }
    return out;
  } finally {
    await doc.destroy();
    worker.destroy();
  }
}

/** pageGraphics of a list, with pdfjs's per-document prefix of shared image ids ("g_d3_…") taken out. */
function graphics(ops: { fnArray: number[]; argsArray: unknown[][] }) {
  const g = pageGraphics(ops.fnArray, ops.argsArray);
  for (const img of g.images) img.objId = img.objId?.replace(/^g_d\d+_/, 'g_') ?? null;
  return g;
}

test('thinned operator lists hold only the graphics operators and give the same page graphics', async () => {
  await withNativeBuiltins(() => import(PDF_WORKER));
  for (const file of ['embedded-images-tables.pdf', 'tracemonkey.pdf']) {
    const thin = await operatorLists(file, await graphicsPdfWorker());
    const whole = await operatorLists(file, new PDFWorker({ verbosity: 0 }));
    assert.equal(thin.length, whole.length);
    let dropped = 0;
    for (let p = 0; p < thin.length; p++) {
      assert.ok(thin[p].fnArray.every((fn) => GRAPHICS_OPS.has(fn)), `${file} p${p + 1}: only graphics operators`);
      dropped += whole[p].fnArray.length - thin[p].fnArray.length;
      assert.deepEqual(graphics(thin[p]), graphics(whole[p]), `${file} p${p + 1}`);
    }
    assert.ok(dropped > 0, `${file}: the text operators were dropped`);
  }
});
