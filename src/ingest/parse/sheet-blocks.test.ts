// Tests of the grid -> blocks rules and of how the chunker handles the huge tables they produce: a
// 3,000-row sheet is split between rows only, every part repeats the header, and no row is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument } from '../chunking/chunker.ts';
import { gridToBlocks, sheetToBlocks } from './sheet-blocks.ts';

test('regions: captions, tables, notes; empty columns dropped; numeric continuation merged', () => {
  const blocks = gridToBlocks([
    ['Report', '', ''],
    ['', '', ''],
    ['Item', '', 'Amount'],
    ['Tea', '', '2'],
    ['', '', ''],
    ['Scones', '', '6'],
    ['', '', ''],
    ['(a) note one', '', ''],
    ['(b) note two'],
  ], 1);
  assert.deepEqual(blocks.map((b) => [b.kind, b.text]), [
    ['paragraph', 'Report'],
    ['table', '| Item | Amount |\n| --- | --- |\n| Tea | 2 |\n| Scones | 6 |'],
    ['paragraph', '(a) note one\n(b) note two'],
  ]);
  assert.deepEqual(sheetToBlocks('Empty', [[''], []], 2), []);
  assert.deepEqual(sheetToBlocks('S', [['S'], ['a', 'b'], ['1', '2']], 3).map((b) => b.kind), ['heading', 'table']);
});

test('a huge sheet is chunked between rows with the header repeated on every chunk', () => {
  const rows = [['Id', 'Name', 'City', 'Amount']];
  for (let i = 1; i <= 3000; i++) rows.push([String(i), `Customer ${i}`, `Town ${i % 97}`, (i * 1.5).toFixed(2)]);
  const blocks = sheetToBlocks('Customers', rows, 1);
  const chunked = chunkDocument({ pages: 1, blocks, images: [] });
  assert.ok(chunked.chunks.length > 20);
  const seen = new Set<string>();
  for (const c of chunked.chunks) {
    const lines = c.content.split('\n');
    assert.equal(lines[0], '| Id | Name | City | Amount |');
    assert.equal(lines[1], '| --- | --- | --- | --- |');
    assert.deepEqual(c.heading_path, ['Customers']);
    // A small last part may be merged into the chunk before it (the chunker's min-size rule): it comes
    // with its own header, after a blank line.
    for (const line of lines.slice(2).filter((l) => l && !l.startsWith('| Id |') && !l.startsWith('| --- |'))) {
      assert.match(line, /^\| \d+ \| Customer \d+ \| Town \d+ \| [\d.]+ \|$/, 'rows are never cut');
      seen.add(line.split(' | ')[0]);
    }
    assert.ok(c.token_count <= 400);
  }
  assert.equal(seen.size, 3000);
});
