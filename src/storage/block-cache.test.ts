// BlockCache: both tiers answer what was stored, the disk tier stays within its bound (re-scanned from the
// directory, as processes sharing it do), and a block evicted by another process is a miss, not an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlockCache } from './block-cache.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function dirBytes(dir: string): number {
  let total = 0;
  for (const sub of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    for (const f of fs.readdirSync(path.join(dir, sub))) total += fs.statSync(path.join(dir, sub, f)).size;
  }
  return total;
}

test('memory and disk tiers answer stored blocks; the disk tier keeps within its bound', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'block-cache-'));
  try {
    const a = new BlockCache({ memoryBytes: 4096, diskBytes: 10_000, dir, rescanMs: 50 });
    // One write at a time, so the order of the files on disk (the LRU order) is the order of the calls.
    for (let i = 0; i < 10; i++) {
      a.set('bucket/t.lance/data/x.lance', i, Buffer.alloc(2000, i));
      await a.flush();
      await sleep(5);
    }
    a.setMeta('bucket/t.lance/data/x.lance', { size: 20_000, etag: '"e"', lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT' });
    await a.flush();
    await sleep(200);
    assert.ok(dirBytes(dir) <= 10_000, `disk tier ${dirBytes(dir)} bytes`);
    assert.deepEqual(await a.get('bucket/t.lance/data/x.lance', 9), Buffer.alloc(2000, 9), 'newest block kept');

    // A second cache on the same directory (another process) reads what the first wrote from disk.
    const b = new BlockCache({ memoryBytes: 0, diskBytes: 10_000, dir });
    assert.deepEqual(await b.get('bucket/t.lance/data/x.lance', 9), Buffer.alloc(2000, 9));
    assert.equal(b.stats.diskHits, 1);
    assert.equal((await b.getMeta('bucket/t.lance/data/x.lance'))?.size, 20_000);
    assert.equal(await b.get('bucket/t.lance/data/x.lance', 0), undefined, 'the oldest block was evicted');
    fs.rmSync(dir, { recursive: true, force: true }); // evicted under it by someone else: a miss
    assert.equal(await b.get('bucket/t.lance/data/x.lance', 9), undefined);
    a.close();
    b.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
