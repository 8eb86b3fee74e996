// Tests of the vector-index policy against a real LanceDB directory: IVF_FLAT for small vectors, rebuilt
// once the table has grown 4×, legacy indexes left alone, IVF_HNSW_SQ for large vectors, and the query
// parameters that follow from each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { annOf, ensureAnn, IVF_FLAT_MAX_DIM, ivfPartitionsFor, nprobesFor, withAnnParams } from './lance-ann.ts';

/** Deterministic pseudo-random rows (xorshift), `dim`-dimensional. */
function rows(n: number, dim: number, from = 0): Array<{ id: string; vector: number[] }> {
  let x = 2463534242 + from;
  const next = () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296 - 0.5;
  };
  return Array.from({ length: n }, (_, i) => ({ id: `r${from + i}`, vector: Array.from({ length: dim }, next) }));
}

async function withDb(fn: (db: lancedb.Connection) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-ann-'));
  const db = await lancedb.connect(dir);
  try {
    await fn(db);
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('partitions grow with √rows and are bounded by the rows; probes are 2·√partitions', () => {
  assert.equal(ivfPartitionsFor(100), 1);
  assert.equal(ivfPartitionsFor(65_536), 64);
  assert.equal(ivfPartitionsFor(1_000_000), 250);
  assert.equal(ivfPartitionsFor(1_300), 5); // capped at rows / 256
  assert.equal(nprobesFor(1), 1);
  assert.equal(nprobesFor(64), 16);
  assert.equal(nprobesFor(256), 32);
  assert.equal(nprobesFor(3), 3); // never more than there are
});

test('annOf recognises our IVF_FLAT naming, anything else on `vector` as another kind, and no index', () => {
  assert.deepEqual(annOf([{ name: 'vector_ivf_flat_p64', columns: ['vector'] }, { name: 'tokens_idx', columns: ['tokens'] }]), { kind: 'ivf_flat', partitions: 64 });
  assert.deepEqual(annOf([{ name: 'vector_idx', columns: ['vector'] }]), { kind: 'other' });
  assert.equal(annOf([{ name: 'doc_id_idx', columns: ['doc_id'] }]), null);
});

test('small vectors: IVF_FLAT past the threshold, rebuilt when the table has grown 4×, old index dropped', async () => {
  await withDb(async (db) => {
    const table = await db.createTable('t', rows(300, 8));
    assert.equal(await ensureAnn(lancedb, table, 300, 8, 1000), false, 'below the threshold');
    assert.equal(annOf(await table.listIndices()), null);
    assert.equal(await ensureAnn(lancedb, table, 300, 8, 100), true);
    assert.deepEqual(annOf(await table.listIndices()), { kind: 'ivf_flat', partitions: 1 });
    assert.equal(await ensureAnn(lancedb, table, 300, 8, 100), false, 'nothing to do at the same size');
    await table.add(rows(1000, 8, 300));
    assert.equal(await ensureAnn(lancedb, table, 1300, 8, 100), true, 'grown more than 4×');
    const indices = (await table.listIndices()).filter((i) => i.columns.includes('vector'));
    assert.deepEqual(indices.map((i) => i.name), ['vector_ivf_flat_p5']);
    const probe = rows(300, 8)[5].vector; // the stored vector of r5
    const hits = await table.vectorSearch(probe).distanceType('cosine').nprobes(nprobesFor(5)).limit(3).toArray();
    assert.equal(hits[0].id, 'r5');
  });
});

test('an IVF_FLAT index whose vectors outgrow the byte bound is rebuilt as IVF_HNSW_SQ', async () => {
  await withDb(async (db) => {
    const table = await db.createTable('t', rows(600, 8));
    const bound = 600 * 8 * 4; // exactly the 600 rows' vectors
    assert.equal(await ensureAnn(lancedb, table, 600, 8, 100, bound), true);
    assert.equal(annOf(await table.listIndices())?.kind, 'ivf_flat');
    await table.add(rows(10, 8, 600));
    assert.equal(await ensureAnn(lancedb, table, 610, 8, 100, bound), true);
    const vector = (await table.listIndices()).filter((i) => i.columns.includes('vector'));
    assert.deepEqual(vector.map((i) => i.indexType), ['IvfHnswSq']);
    assert.equal(await ensureAnn(lancedb, table, 610, 8, 100, bound), false, 'then left alone');
  });
});

test('IVF_FLAT: a narrow prefilter still returns its rows (probing continues past nprobesFor while too few passed)', async () => {
  await withDb(async (db) => {
    const data = rows(20_000, 16).map((r, i) => ({ ...r, g: i % 1000 }));
    const table = await db.createTable('t', data);
    assert.equal(await ensureAnn(lancedb, table, data.length, 16, 100), true);
    const ann = annOf(await table.listIndices());
    assert.deepEqual(ann, { kind: 'ivf_flat', partitions: ivfPartitionsFor(20_000) });
    // 20 rows pass the filter, scattered over the partitions; a fixed nprobes finds few or none of them.
    const query = () => table.vectorSearch(data[3].vector).distanceType('cosine').where('g = 3');
    const hits = await withAnnParams(query(), ann, 20).limit(20).toArray();
    assert.equal(hits.length, 20);
    assert.equal(hits[0].id, 'r3');
    const fixed = await query().nprobes(nprobesFor(ivfPartitionsFor(20_000))).limit(20).toArray();
    assert.ok(fixed.length < 20, `a fixed nprobes returned ${fixed.length}`);
  });
});

test('an IVF_HNSW_SQ table of small vectors becomes IVF_FLAT when they take at most half the bound; large vectors get IVF_HNSW_SQ', async () => {
  await withDb(async (db) => {
    const legacy = await db.createTable('legacy', rows(600, 8));
    await legacy.createIndex('vector', { config: lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: 1 }) });
    assert.deepEqual(annOf(await legacy.listIndices()), { kind: 'other' });
    assert.equal(await ensureAnn(lancedb, legacy, 600, 8, 100, 600 * 8 * 4), false, 'within the bound but not within half of it: kept');
    assert.equal(await ensureAnn(lancedb, legacy, 600, 8, 100), true);
    const converted = (await legacy.listIndices()).filter((i) => i.columns.includes('vector'));
    assert.deepEqual(converted.map((i) => i.indexType), ['IvfFlat']);
    const dim = IVF_FLAT_MAX_DIM + 32;
    const large = await db.createTable('large', rows(600, dim));
    assert.equal(await ensureAnn(lancedb, large, 600, dim, 100), true);
    const vector = (await large.listIndices()).filter((i) => i.columns.includes('vector'));
    assert.equal(vector.length, 1);
    assert.equal(vector[0].indexType, 'IvfHnswSq');
    assert.deepEqual(annOf(vector), { kind: 'other' });
    assert.equal(await ensureAnn(lancedb, large, 600, dim, 100), false, 'large vectors stay on IVF_HNSW_SQ');
  });
});
