// Tests for the builtin GloVe/SIF embedder: the int8 cache is built from the real package JSON, reloaded,
// and the vectors behave like sentence embeddings (normalised, 100-d, similar > unrelated).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBuiltinEmbedder, gloveTokens, loadBuiltinEmbedder, sifWeights, type BuiltinEmbedder } from './builtin-embedder.ts';
import { gloveCachePath, readGloveCache } from './builtin-glove-cache.ts';

let dataDir: string;
let embedder: BuiltinEmbedder;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-glove-'));
  embedder = await createBuiltinEmbedder({ dataDir });
});

after(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function norm(a: Float32Array): number {
  return Math.sqrt(cosine(a, a));
}

test('first use builds the int8 cache; a later start loads it', async () => {
  assert.equal(embedder.loadInfo.built, true);
  const file = gloveCachePath(dataDir);
  assert.equal(embedder.loadInfo.cachePath, file);
  const size = fs.statSync(file).size;
  assert.equal(size, embedder.loadInfo.cacheBytes);
  assert.ok(size > 30e6 && size < 50e6, `cache size ${size}`);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['glove-100d.int8.bin']); // no temp files left

  const again = await loadBuiltinEmbedder(dataDir);
  assert.equal(again.loadInfo.built, false);
  const text = 'Diffusion tensor imaging of cerebral white matter in preterm infants.';
  assert.deepEqual(await again.embedQuery(text), await embedder.embedQuery(text));
  // Same process, same directory: one shared instance.
  assert.equal(await createBuiltinEmbedder({ dataDir }), embedder);
});

test('a truncated cache file is rejected (and would be rebuilt)', async () => {
  const file = gloveCachePath(dataDir);
  const broken = path.join(dataDir, 'broken.bin');
  fs.writeFileSync(broken, fs.readFileSync(file).subarray(0, 1_000_000));
  assert.equal(await readGloveCache(broken), null);
  assert.equal(await readGloveCache(path.join(dataDir, 'missing.bin')), null);
  fs.rmSync(broken);
});

test('signature and shape: 100-d, L2-normalised', async () => {
  assert.deepEqual(embedder.signature, { provider: 'builtin', model: 'glove-6b-100d-sif', dimension: 100 });
  const vecs = await embedder.embedDocuments(['The cat rested on the carpet.', 'Gene expression in tumour cells.']);
  assert.equal(vecs.length, 2);
  for (const v of vecs) {
    assert.ok(v instanceof Float32Array);
    assert.equal(v.length, 100);
    assert.ok(Math.abs(norm(v) - 1) < 1e-5);
  }
});

test('similar sentences are closer than unrelated ones', async () => {
  const [cat, kitten, market] = await embedder.embedDocuments([
    'The cat rested on the carpet.',
    'The kitten slept on the rug.',
    'The stock market fell sharply on Tuesday.',
  ]);
  assert.ok(cosine(cat, kitten) > cosine(cat, market) + 0.2);
  assert.ok(cosine(cat, kitten) > cosine(kitten, market) + 0.2);
  const q = await embedder.embedQuery('vaccine efficacy against influenza');
  const [flu, football] = await embedder.embedDocuments([
    'Influenza vaccination reduced hospital admissions in elderly patients.',
    'The quarterback threw three touchdown passes in the second half.',
  ]);
  assert.ok(cosine(q, flu) > cosine(q, football));
});

test('empty, non-English or out-of-vocabulary text gives the zero vector', async () => {
  for (const t of ['', '   ', '北京天安门', 'zzqxjw qqvvzz']) {
    const v = await embedder.embedQuery(t);
    assert.equal(v.length, 100);
    assert.ok(v.every((x) => x === 0), JSON.stringify(t));
  }
});

test('tokens: lowercase ASCII, accents folded, clitics handled', () => {
  assert.deepEqual(gloveTokens("The Café doesn't close; it's well-known (2019)."), ['the', 'cafe', 'does', 'close', 'it', 'well-known', '2019']);
  assert.deepEqual(gloveTokens('Patient\u2019s results'), ['patient', 'results']);
});

test('SIF weights fall with frequency rank', () => {
  const w = sifWeights(1000);
  assert.ok(w[0] < w[10] && w[10] < w[999]);
  assert.ok(w.every((x) => x > 0 && x < 1));
});

test('coverage: share of word tokens with a GloVe vector', () => {
  assert.equal(embedder.coverage('the protein binds the receptor'), 1);
  assert.equal(embedder.coverage(''), 0);
  assert.ok(embedder.coverage('مرحبا بالعالم 2019') < 0.5, 'Arabic words are unknown; the year is known');
  const half = embedder.coverage('protein zzqxv');
  assert.equal(half, 0.5);
});
