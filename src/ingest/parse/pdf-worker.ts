// The pdfjs "worker" a PDF parse runs on: pdfjs's fake worker (its worker code in this thread, as
// getDocument sets it up in Node), whose messages cross a loopback port that structured-clones each one.
// The parser reads a page's operator list only for its graphics (pdf-graphics.ts), but pdfjs sends every
// operator, a text-showing one with an array of glyph objects: on the FinanceBench filings that clone was
// the largest single cost of the parse after pdfjs's own parsing (a 10-K that positions each glyph on its
// own: 470k operators on 40 pages, 1.3–2.0 s of cloning for 160 pages). This port keeps, in the chunks of
// an operator list requested by getOperatorList, only the operators pageGraphics reads (GRAPHICS_OPS), in
// their order, so the graphics it finds are the same. Streams of page.render (OCR renders scanned pages)
// and every other message pass unchanged. Should pdfjs's message shapes change, nothing matches and every
// message passes whole: slower, never different.
import { PDFWorker } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { GRAPHICS_OPS } from './pdf-graphics.ts';

/** pdfjs's RenderingIntentFlag.OPLIST: set in the intent of a GetOperatorList request made by page.getOperatorList (not by render). */
const OPLIST_INTENT = 0x100;

interface PortMessage {
  sourceName?: string;
  targetName?: string;
  action?: string;
  streamId?: number;
  data?: { intent?: number };
  chunk?: { fnArray?: unknown; argsArray?: unknown; length?: number; lastChunk?: boolean };
}

type PostMessage = (msg: unknown, transfer?: Transferable[]) => void;

/** An operator-list chunk with only the graphics operators (file header). */
function graphicsOnly(chunk: { fnArray: number[]; argsArray: unknown[]; length?: number }): { fnArray: number[]; argsArray: unknown[]; length: number } {
  const fnArray: number[] = [];
  const argsArray: unknown[] = [];
  const n = chunk.length ?? chunk.fnArray.length;
  for (let i = 0; i < n; i++) {
    const fn = chunk.fnArray[i];
    if (!GRAPHICS_OPS.has(fn)) continue;
    fnArray.push(fn);
    argsArray.push(chunk.argsArray[i]);
  }
  return { ...chunk, fnArray, argsArray, length: fnArray.length };
}

/**
 * Wrap the loopback port's postMessage (both directions cross it): remember the streams that
 * getOperatorList opened, and thin their chunks before pdfjs clones them.
 */
function thinOperatorLists(port: { postMessage: PostMessage }): void {
  const post = port.postMessage.bind(port);
  const opListStreams = new Set<string>();
  port.postMessage = (msg: unknown, transfer?: Transferable[]) => {
    const m = msg as PortMessage | null;
    if (m && typeof m === 'object') {
      if (m.action === 'GetOperatorList' && typeof m.streamId === 'number' && ((m.data?.intent ?? 0) & OPLIST_INTENT)) {
        opListStreams.add(`${m.sourceName}:${m.streamId}`);
      } else if (typeof m.streamId === 'number' && m.chunk && Array.isArray(m.chunk.fnArray) && Array.isArray(m.chunk.argsArray)) {
        const key = `${m.targetName}:${m.streamId}`;
        if (opListStreams.has(key)) {
          if (m.chunk.lastChunk) opListStreams.delete(key);
          msg = { ...m, chunk: graphicsOnly(m.chunk as { fnArray: number[]; argsArray: unknown[]; length?: number }) };
        }
      }
    }
    post(msg, transfer);
  };
}

/**
 * A pdfjs worker for one document (pass it to getDocument as `worker`; destroy it after the document).
 * Its operator lists from page.getOperatorList() hold only GRAPHICS_OPS (file header).
 */
export async function graphicsPdfWorker(): Promise<PDFWorker> {
  const worker = new PDFWorker({ verbosity: 0 });
  await worker.promise;
  const port = worker.port as unknown as { postMessage: PostMessage } | null;
  if (port && typeof port.postMessage === 'function') thinOperatorLists(port);
  return worker;
}
