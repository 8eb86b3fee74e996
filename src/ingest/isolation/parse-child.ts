// Entry point of a parse child process (started by parse-runner.ts with fork + IPC). It parses one
// document at a time: {id, data, filename, mediaType, limits, chunk?} in, {id, pages} while a paged
// format is read, then {id, ok, doc, chunked? | error} out. With `chunk` it also chunks the document here (token counting and sentence splitting grow with the
// input: they must not run on the service's event loop) and sends back only the blocks the
// service still needs (tables and image references for the assets), not the text twice. Buffers cross
// the channel through V8 serialisation (structured clone); the chunks go first in parts of CHUNK_PART
// (`{id, part}` messages), because deserialising one reply of a 20 MB document held the service's loop
// for ~0.3 s. The child leaves when its parent goes away, with the tesseract runs it started, so a
// crashed or killed service never leaves parsers behind.
import { Worker } from 'node:worker_threads';
import { chunkDocument } from '../chunking/chunker.ts';
import { loadParsers, parseDocument } from '../parse/index.ts';
import { ParseError } from '../parse/types.ts';
import { setParseLimits } from './limits.ts';
import { setPageListener, takeParseTimes } from '../parse/parse-progress.ts';
import { CHUNK_PART, type ParseReply, type ParseRequest } from './parse-protocol.ts';

/**
 * End this child and everything it started. The runner forks it as the leader of its own process group
 * (detached), and tesseract runs inherit the group, so one SIGKILL to the group takes them all: exiting
 * alone left a running tesseract orphaned for up to its 60 s timeout.
 */
function leaveWithGroup(): void {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    process.exit(0); // not a group leader (forked another way): at least this process goes
  }
}

process.on('disconnect', leaveWithGroup);
// 'disconnect' is an event: a parse holding the main thread (a long synchronous step) would not see it
// until it returns. A watchdog thread notices the parent's death on its own (the child is re-parented,
// so its parent pid changes) within a quarter second and ends the group from there.
const parentPid = process.ppid;
new Worker(`
  const timer = setInterval(() => {
    if (process.ppid === ${parentPid}) return;
    clearInterval(timer);
    try { process.kill(-${process.pid}, 'SIGKILL'); } catch { process.kill(${process.pid}, 'SIGKILL'); }
  }, 250);
`, { eval: true, execArgv: [] }).unref();
process.on('message', (msg: ParseRequest) => {
  void (async () => {
    let reply: ParseReply;
    try {
      setParseLimits(msg.limits);
      const data = Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);
      setPageListener((parsed, total) => process.send?.({ id: msg.id, pages: { parsed, total } } satisfies ParseReply));
      takeParseTimes();
      const t0 = performance.now();
      const doc = await parseDocument({ data, filename: msg.filename, mediaType: msg.mediaType });
      const { tables, figures } = takeParseTimes();
      const t1 = performance.now();
      const timings = { parse: Math.max(0, t1 - t0 - tables - figures), tables, figures, chunk: 0 };
      if (msg.chunk) {
        const chunked = chunkDocument(doc);
        timings.chunk = performance.now() - t1;
        const blocks = doc.blocks.filter((b) => b.kind === 'table' || b.kind === 'image');
        for (let i = 0; i < chunked.chunks.length; i += CHUNK_PART) {
          process.send?.({ id: msg.id, part: chunked.chunks.slice(i, i + CHUNK_PART) } satisfies ParseReply);
        }
        reply = { id: msg.id, ok: true, doc: { ...doc, blocks }, chunked: { ...chunked, chunks: [] }, timings };
      } else {
        reply = { id: msg.id, ok: true, doc, timings };
      }
    } catch (err) {
      reply = err instanceof ParseError
        ? { id: msg.id, ok: false, parseError: { jobCode: err.jobCode, errorCode: err.errorCode, message: err.message }, message: err.message }
        : { id: msg.id, ok: false, message: (err as Error)?.stack ?? String(err) };
    }
    setPageListener(undefined);
    process.send?.(reply);
  })();
});
// Load the parsers and pdfjs's worker code now (it registers globalThis.pdfjsWorker), so the first
// document does not pay for importing them inside its time bound.
await loadParsers();
process.send?.({ ready: true });
