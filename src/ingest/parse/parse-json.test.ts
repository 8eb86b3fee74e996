// Tests of the JSON parser's key-path rendering: scalar members as "path: value" lines, nested objects
// as headed sections, arrays of flat objects as tables, JSON Lines, invalid JSON as a 415.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from './index.ts';

const parse = (value: unknown, filename = 'x.json') =>
  parseDocument({ data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), filename });

test('objects: key paths, headed sections, scalar arrays on one line, title member', async () => {
  const doc = await parse({ title: 'Shop export', tags: ['a', 'b'], owner: { name: 'Ada', address: { city: 'London' } } });
  assert.equal(doc.title, 'Shop export');
  assert.deepEqual(doc.blocks.map((b) => [b.kind, b.text, b.level]), [
    ['paragraph', 'title: Shop export\ntags: a, b', undefined],
    ['heading', 'owner', 1],
    ['paragraph', 'owner.name: Ada', undefined],
    ['heading', 'owner.address', 2],
    ['paragraph', 'owner.address.city: London', undefined],
  ]);
});

test('arrays of flat objects become one table with the union of keys', async () => {
  const doc = await parse({ orders: [{ id: 1, item: 'tea' }, { id: 2, item: 'scones', note: 'warm' }] });
  const table = doc.blocks.find((b) => b.kind === 'table')!;
  assert.equal(table.text, '| id | item | note |\n| --- | --- | --- |\n| 1 | tea |  |\n| 2 | scones | warm |');
});

test('JSON Lines are read as an array; invalid JSON is unreadable (415)', async () => {
  const doc = await parse('{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n', 'log.json');
  assert.equal(doc.blocks[0].kind, 'table');
  await assert.rejects(parse('{"a": ', 'bad.json'), (err: { jobCode: number; errorCode: string }) =>
    err.jobCode === 415 && err.errorCode === 'unreadable_document');
});
