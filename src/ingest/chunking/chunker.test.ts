// Chunker tests: heading paths, sizes, page spans, chunksets, and the never-split guarantees (tables
// by row with the header repeated, lists by item, code by line, re-fenced), on synthetic documents and
// on real parsed files from ../shared/data/docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from '../../analysis/token-count.ts';
import { parseDocument } from '../parse/index.ts';
import type { Block, ParsedDocument } from '../parse/types.ts';
import { chunkDocument } from './chunker.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const docs = path.resolve(repoRoot, '../shared/data/docs');
const parseFile = (rel: string) =>
  parseDocument({ data: fs.readFileSync(path.join(docs, rel)), filename: path.basename(rel) });

const para = (n: number, page = 1): Block => ({
  kind: 'paragraph',
  text: `Paragraph ${n} says something about retrieval systems and their evaluation on benchmarks. `.repeat(4).trim(),
  page,
});
const heading = (text: string, level: number, page = 1): Block => ({ kind: 'heading', text, level, page });
const doc = (blocks: Block[]): ParsedDocument => ({ pages: Math.max(...blocks.map((b) => b.page)), blocks, images: [] });

test('heading paths follow the hierarchy; headings are not in content; empty sections give nothing', () => {
  const result = chunkDocument(doc([
    para(0),
    heading('Intro', 1),
    para(1),
    heading('Details', 2),
    para(2),
    heading('Empty', 3),
    heading('Deeper', 3),
    para(3),
    heading('Next chapter', 1),
    para(4, 2),
  ]));
  assert.deepEqual(result.chunks.map((c) => c.heading_path), [
    [], ['Intro'], ['Intro', 'Details'], ['Intro', 'Details', 'Deeper'], ['Next chapter'],
  ]);
  assert.ok(result.chunks.every((c) => !/Intro|Details|Deeper|Empty/.test(c.content)));
  assert.deepEqual(result.chunks.map((c) => c.chunk_index), [0, 1, 2, 3, 4]);
  assert.deepEqual(result.chunks.map((c) => c.chunkset_index), [0, 1, 2, 3, 4]);
  assert.equal(result.chunksetCount, 5);
  assert.deepEqual([result.chunks[4].page_start, result.chunks[4].page_end], [2, 2]);
});

test('paragraphs are grouped into ~100-400 token chunks with page spans; chunksets capped', () => {
  const blocks = [heading('Long section', 1), ...Array.from({ length: 60 }, (_, i) => para(i, 1 + Math.floor(i / 7)))];
  const result = chunkDocument(doc(blocks), { chunksetMaxTokens: 1000 });
  for (const c of result.chunks) {
    assert.equal(c.token_count, countTokens(c.content));
    assert.ok(c.token_count >= 100 && c.token_count <= 400, `chunk of ${c.token_count} tokens`);
    assert.ok(c.page_start <= c.page_end);
  }
  assert.ok(result.chunks.some((c) => c.page_end > c.page_start), 'a chunk spans a page break');
  // Every paragraph appears exactly once, whole, in document order.
  const all = result.chunks.map((c) => c.content).join('\n\n');
  assert.equal(all, blocks.slice(1).map((b) => b.text).join('\n\n'));
  // Chunksets: contiguous, each ≤ 1000 tokens, more than one for this long section.
  const sets = new Map<number, number>();
  for (const c of result.chunks) sets.set(c.chunkset_index, (sets.get(c.chunkset_index) ?? 0) + c.token_count);
  assert.ok(sets.size > 1 && sets.size === result.chunksetCount);
  for (const total of sets.values()) assert.ok(total <= 1000);
});

test('an oversized table is split between rows with the header repeated on every part', () => {
  const header = '| Id | Name | Description |\n| --- | --- | --- |';
  const rows = Array.from({ length: 120 }, (_, i) => `| ${i} | item-${i} | a description of item number ${i} in the catalogue |`);
  const table: Block = { kind: 'table', text: `${header}\n${rows.join('\n')}`, page: 3 };
  const result = chunkDocument(doc([heading('Catalogue', 1), table]));
  assert.ok(result.chunks.length > 1);
  assert.equal(result.tableCount, 1);
  const seen: string[] = [];
  for (const c of result.chunks) {
    assert.ok(c.content.startsWith(`${header}\n`), 'header repeated');
    assert.ok(c.token_count <= 400);
    assert.deepEqual([c.page_start, c.page_end], [3, 3]);
    seen.push(...c.content.split('\n').slice(2));
  }
  assert.deepEqual(seen, rows, 'every row exactly once, none cut');
});

test('oversized lists split between items, code between lines (re-fenced)', () => {
  const items = Array.from({ length: 80 }, (_, i) => `- item ${i} with a few words of explanation\n  - nested detail ${i}`);
  const code = ['```ts', ...Array.from({ length: 300 }, (_, i) => `const value${i} = compute(${i}); // line ${i}`), '```'];
  const result = chunkDocument(doc([
    { kind: 'list', text: items.join('\n'), page: 1 },
    { kind: 'code', text: code.join('\n'), page: 2 },
  ]));
  const listChunks = result.chunks.filter((c) => c.content.startsWith('- item'));
  assert.ok(listChunks.length > 1);
  assert.deepEqual(listChunks.flatMap((c) => c.content.split(/\n(?=- item)/)), items);
  const codeChunks = result.chunks.filter((c) => c.content.startsWith('```ts\n'));
  assert.ok(codeChunks.length > 1);
  for (const c of codeChunks) assert.ok(c.content.endsWith('\n```'));
  assert.deepEqual(codeChunks.flatMap((c) => c.content.split('\n').slice(1, -1)), code.slice(1, -1));
});

test('tracemonkey.pdf: section paths, page spans and sizes on a real paper', async () => {
  const parsed = await parseFile('pdf/tracemonkey.pdf');
  const result = chunkDocument(parsed);
  assert.ok(result.chunks.length > 30);
  assert.equal(result.imageCount, parsed.imageCount);
  const traces = result.chunks.find((c) => c.heading_path.at(-1) === '3.1 Traces');
  assert.deepEqual(traces?.heading_path, ['3. Trace Trees', '3.1 Traces']);
  let prevStart = 1;
  for (const c of result.chunks) {
    assert.ok(c.page_start >= prevStart && c.page_end >= c.page_start && c.page_end <= 14);
    prevStart = c.page_start;
    assert.ok(c.token_count > 0 && c.token_count <= 400, `${c.token_count}`);
  }
  const sizes = result.chunks.map((c) => c.token_count).sort((a, b) => a - b);
  assert.ok(sizes[sizes.length >> 1] >= 100, 'median chunk is at least 100 tokens');
  assert.ok(result.chunks.some((c) => c.content.includes('TraceMonkey')));
});

test('word_tables.docx: each table stays whole in one chunk', async () => {
  const parsed = await parseFile('docx/word_tables.docx');
  const result = chunkDocument(parsed);
  const tables = parsed.blocks.filter((b) => b.kind === 'table');
  assert.equal(result.tableCount, tables.length);
  for (const t of tables) assert.ok(result.chunks.some((c) => c.content.includes(t.text)));
});

test('a section’s short lead-in opens its first subsection’s chunk; a longer one, or one before a sibling, stands alone', () => {
  const h = (text: string, level: number) => ({ kind: 'heading' as const, text, level, page: 1 });
  const p = (text: string) => ({ kind: 'paragraph' as const, text, page: 1 });
  const intro = 'This report describes the whole year in some detail, '.repeat(8).trim();
  const doc = (blocks: Array<ReturnType<typeof h> | ReturnType<typeof p>>) => ({ title: 'T', blocks, pages: 1, images: [] }) as never;
  const carried = chunkDocument(doc([h('Statement', 1), p('(Millions) 2018 2017'), h('Investing', 2), p('Purchases of equipment (1,577) (1,373)')])).chunks;
  assert.equal(carried.length, 1);
  assert.deepEqual(carried[0].heading_path, ['Statement', 'Investing']);
  assert.equal(carried[0].content, '(Millions) 2018 2017\n\nPurchases of equipment (1,577) (1,373)');
  const long = chunkDocument(doc([h('Statement', 1), p(intro), h('Investing', 2), p('Purchases of equipment')])).chunks;
  assert.deepEqual(long.map((c) => c.heading_path), [['Statement'], ['Statement', 'Investing']]);
  const sibling = chunkDocument(doc([h('A', 1), p('(Millions) 2018'), h('B', 1), p('Other text')])).chunks;
  assert.deepEqual(sibling.map((c) => c.heading_path), [['A'], ['B']]);
});

test('text without spaces or line breaks is chunked in time linear in its length (8 MB: seconds, not minutes)', () => {
  // The shape of an 8 MB unbroken sequence: one "word". Searching for a break back through the whole
  // text from every 2,000-character piece made this quadratic (8 MB: 174 s against 3 s for 1 MB).
  const unbroken = (bytes: number) => {
    const letters = 'ACGT';
    let s = '';
    for (let i = 0; i < bytes; i++) s += letters[(i * 7919 + (i >> 5)) % 4];
    return s;
  };
  const timeChunking = (text: string) => {
    const t0 = performance.now();
    const chunks = chunkDocument(doc([{ kind: 'paragraph', text, page: 1 }])).chunks;
    return { ms: performance.now() - t0, chunks: chunks.length, chars: chunks.reduce((n, c) => n + c.content.length, 0) };
  };
  timeChunking(unbroken(64 * 1024)); // warm-up
  const small = timeChunking(unbroken(1024 * 1024));
  const large = timeChunking(unbroken(8 * 1024 * 1024));
  assert.equal(large.chars, 8 * 1024 * 1024, 'every character is kept');
  assert.ok(large.chunks >= 8 * small.chunks - 8);
  // Linear: about 8 times the 1 MB time; quadratic: about 64 times.
  assert.ok(large.ms < 20 * small.ms, `8 MB took ${Math.round(large.ms)} ms, 1 MB ${Math.round(small.ms)} ms`);
});
