import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { isSerialisedBytes, refuseSerialisedBytes } from './serialised-body.ts';

const file = Buffer.from('%PDF-1.7\n' + 'x'.repeat(200));

test('byte arrays serialised as JSON are recognised, files and ordinary JSON are not', () => {
  assert.ok(isSerialisedBytes(Buffer.from(JSON.stringify(file))));
  assert.ok(isSerialisedBytes(Buffer.from(JSON.stringify(new Uint8Array(file)))));
  assert.ok(isSerialisedBytes(Buffer.from(JSON.stringify(file, null, 2))));
  assert.ok(!isSerialisedBytes(file));
  assert.ok(!isSerialisedBytes(Buffer.from('{"type":"report","data":[1,2]}')));
  assert.ok(!isSerialisedBytes(Buffer.from('{}')));
});

test('a file passes through unchanged, whatever its chunking and size', async () => {
  for (const chunks of [[file], [file.subarray(0, 3), file.subarray(3, 70), file.subarray(70)], [Buffer.from('ab')], []]) {
    const out = await buffer(refuseSerialisedBytes(Readable.from(chunks)));
    assert.deepEqual(out, Buffer.concat(chunks));
  }
});

test('a serialised body fails the stream with unsupported_media_type, also when split across chunks', async () => {
  const json = Buffer.from(JSON.stringify(file));
  for (const chunks of [[json], [json.subarray(0, 5), json.subarray(5, 30), json.subarray(30)]]) {
    await assert.rejects(buffer(refuseSerialisedBytes(Readable.from(chunks))), (err: { code?: string; status?: number }) => err.code === 'unsupported_media_type' && err.status === 400);
  }
});
