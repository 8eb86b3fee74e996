// Parse isolation: pathological inputs fail their own parse with a clear code and the runner keeps
// serving — a DOCX zip bomb (memory bound), a 10,000-page PDF (page limit, then the time bound when
// the page limit is lifted) — and parses happen in a child process, not in this one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CHUNK_PART, ParseRunner } from './parse-runner.ts';
import { ParseError } from '../parse/types.ts';
import { parseDocument } from '../parse/index.ts';
import { chunkDocument } from '../chunking/chunker.ts';
import { manyPagePdf, zipBombDocx } from '../../../test/helpers/pathological-files.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const sample = () => ({ data: fs.readFileSync(path.resolve(repoRoot, '../shared/data/docs/pdf/layout-parser-paper-with-table.pdf')), filename: 'lp.pdf' });
const runner = new ParseRunner({ size: 1, maxMemoryMb: 700, timeoutMs: 60_000 });
after(() => runner.close());

function isParseError(code: number, errorCode: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ParseError, String(err));
    assert.equal(err.jobCode, code);
    assert.equal(err.errorCode, errorCode);
    return true;
  };
}

test('a normal document parses in a child process, with its stats', async () => {
  const { doc, stats } = await runner.parseWithStats(sample());
  assert.ok(doc.blocks.some((b) => b.kind === 'table'));
  assert.ok(stats.peakRssBytes > 50 * 1024 * 1024, 'peak RSS is the child\'s, measured');
  assert.ok(process.memoryUsage().rss > 0);
});

test('parseAndChunk chunks in the child exactly as chunkDocument does here, and returns only table/image blocks', async () => {
  const input = sample();
  const { doc, chunked } = await runner.parseAndChunk(input);
  const local = chunkDocument(await parseDocument(input));
  assert.deepEqual(chunked, local);
  assert.ok(doc.blocks.length > 0 && doc.blocks.every((b) => b.kind === 'table' || b.kind === 'image'));
});

test('parseAndChunk: a long single-line text comes back in several parts, reassembled in order', async () => {
  let x = 7;
  const data = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < data.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    data[i] = 'ACGT'.charCodeAt((x >> 16) & 3);
  }
  const input = { data, filename: 'sequence.txt' };
  const { chunked } = await runner.parseAndChunk(input);
  assert.ok(chunked.chunks.length > 2 * CHUNK_PART, `${chunked.chunks.length} chunks`);
  assert.deepEqual(chunked, chunkDocument(await parseDocument(input)));
});

test('a zip bomb DOCX fails at once with 413 document_too_large (declared size over half the memory bound); the next parse works', async () => {
  const bomb = await zipBombDocx(600);
  assert.ok(bomb.length < 2 * 1024 * 1024);
  await runner.parse(sample()); // a warm child: the bound below times the refusal, not a start-up
  const started = Date.now();
  await assert.rejects(runner.parse({ data: bomb, filename: 'bomb.docx' }), (err: unknown) => {
    assert.ok(err instanceof ParseError, String(err));
    assert.equal(err.jobCode, 413);
    assert.equal(err.errorCode, 'document_too_large');
    assert.match(err.message, /inflates to 600 MB .* than the 350 MB/);
    return true;
  });
  assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
  const doc = await runner.parse(sample());
  assert.ok(doc.blocks.length > 0);
});

test('a 10,000-page PDF fails with 413 document_too_large', async () => {
  await assert.rejects(runner.parse({ data: manyPagePdf(10_000), filename: 'long.pdf' }), isParseError(413, 'document_too_large'));
});

test('past the time bound the child is killed: 422 parse_timeout, and the runner recovers', async () => {
  const slow = new ParseRunner({ size: 1, timeoutMs: 5000, limits: { maxPages: 100_000 } });
  try {
    await assert.rejects(slow.parse({ data: manyPagePdf(10_000), filename: 'long.pdf' }), isParseError(422, 'parse_timeout'));
    const doc = await slow.parse({ data: manyPagePdf(3), filename: 'short.pdf' });
    assert.equal(doc.pages, 3);
  } finally {
    await slow.close();
  }
});
