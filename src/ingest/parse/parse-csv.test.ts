// Tests of the CSV/TSV parser on the real samples: delimiter guessing (comma vs semicolon with commas
// inside fields), UTF-16 input, caption rows, ragged rows, and quoted fields with embedded newlines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseDocument } from './index.ts';
import { parserFor, tableCells } from './test-support.ts';
import { readDelimited } from './parse-csv.ts';

const dir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/csv');
const parse = parserFor(dir);

const STANLEY = [['Team', 'Location', 'Stanley Cups'], ['Blues', 'STL', '1'], ['Flyers', 'PHI', '2'], ['Maple Leafs', 'TOR', '13']];

test('stanley-cups.csv and its UTF-16 twin give the same caption and table', async () => {
  for (const name of ['stanley-cups.csv', 'stanley-cups-utf-16.csv']) {
    const doc = await parse(name);
    assert.deepEqual(doc.blocks.map((b) => b.kind), ['paragraph', 'table'], name);
    assert.equal(doc.blocks[0].text, 'Stanley Cups', name);
    assert.deepEqual(tableCells(doc.blocks[1].text), STANLEY, name);
  }
});

test('semicolon-delimited.csv: the semicolon is chosen; commas stay inside cells', async () => {
  const doc = await parse('semicolon-delimited.csv');
  const cells = tableCells(doc.blocks[0].text);
  assert.deepEqual(cells[0], ['Lorem, ipsum', 'dolor sit', 'amet']);
  assert.deepEqual(cells[3], ['ut labore', 'et, dolore', 'magna aliqua']);
});

test('csv-inconsistent-header.csv: ragged rows are padded to the widest row', async () => {
  const cells = tableCells((await parse('csv-inconsistent-header.csv')).blocks[0].text);
  assert.deepEqual(cells[0], ['1', '2', '3', '']);
  assert.deepEqual(cells[1], ['a', 'b', 'c', 'd']);
});

test('quoted fields with delimiters and newlines; TSV', async () => {
  assert.deepEqual(readDelimited('a,b\n"x, y","line1\nline2"\n').rows.slice(0, 2), [['a', 'b'], ['x, y', 'line1\nline2']]);
  const doc = await parseDocument({ data: Buffer.from('name\tqty\ntea\t2\n'), filename: 'x.tsv' });
  assert.deepEqual(tableCells(doc.blocks[0].text), [['name', 'qty'], ['tea', '2']]);
});
