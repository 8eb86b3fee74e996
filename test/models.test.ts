// Model providers (DESIGN.md §3) with their real loading code: the ONNX embedder and cross-encoder run
// the tiny random-weight models the project generates (scripts/make-tiny-models.ts, committed under
// test/fixtures/models) through @huggingface/transformers offline; the HTTP reranker talks to a local
// server this test starts; configuration errors name their key.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { OnnxEmbedder, poolingMode } from '../src/models/onnx-embedder.ts';
import { OnnxReranker } from '../src/models/onnx-reranker.ts';
import { inspectModelDir } from '../src/models/onnx-local.ts';
import { HttpReranker, rerankEndpoint } from '../src/models/http-reranker.ts';
import { createEmbedder } from '../src/models/create-embedder.ts';
import { createReranker } from '../src/models/create-reranker.ts';
import { loadConfig } from '../src/internal/config.ts';
import { NetGuard } from '../src/internal/net-guard.ts';
import type { RerankCandidate } from '../src/models/reranker.ts';
import { repoRoot } from './helpers/start-test-server.ts';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'models');
const EMBEDDER = path.join(fixtures, 'tiny-bert-embedder');
const RERANKER = path.join(fixtures, 'tiny-bert-reranker');

const cand = (text: string, title = ''): RerankCandidate => ({ title, text, first: { ann: null, bm25: null, rrf: 0, score: 0.5, features: {} } });
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('onnx embedder (tiny random-weight BERT)', () => {
  let emb: OnnxEmbedder;
  before(async () => { emb = await OnnxEmbedder.open({ modelDir: EMBEDDER, queryPrefix: 'query: ' }); });

  test('fixtures are small and complete', () => {
    for (const dir of [EMBEDDER, RERANKER]) {
      const size = fs.statSync(path.join(dir, 'onnx', 'model.onnx')).size;
      assert.ok(size > 1000 && size < 20_000, `${dir}: ${size} bytes`);
      assert.equal(inspectModelDir(dir).dtype, 'fp32');
    }
    assert.equal(poolingMode(EMBEDDER), 'mean');
  });

  test('signature from the folder; normalised vectors of the model dimension; batches keep order', async () => {
    assert.deepEqual(emb.signature, { provider: 'onnx', model: 'tiny-bert-embedder', dimension: 8 });
    const texts = Array.from({ length: 20 }, (_, i) => `The football club ${i} plays at the city stadium by the river.`);
    const vecs = await emb.embedDocuments(texts);
    assert.equal(vecs.length, 20);
    for (const v of vecs) {
      assert.equal(v.length, 8);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
    const [again] = await emb.embedDocuments([texts[7]]);
    assert.deepEqual(Array.from(again).map((x) => x.toFixed(5)), Array.from(vecs[7]).map((x) => x.toFixed(5)));
    const other = await emb.embedDocuments(['Vaccine research in cancer patients.']);
    assert.notDeepEqual(Array.from(other[0]), Array.from(vecs[0]));
  });

  test('empty text gives the zero vector; the query prefix is applied to queries only', async () => {
    const [empty] = await emb.embedDocuments(['   ']);
    assert.ok(empty.every((x) => x === 0));
    const q = await emb.embedQuery('duck');
    const [d] = await emb.embedDocuments(['duck']);
    const [pd] = await emb.embedDocuments(['query: duck']);
    assert.notDeepEqual(Array.from(q), Array.from(d));
    assert.deepEqual(Array.from(q), Array.from(pd));
  });

  test('createEmbedder builds it from DOCSEARCH_EMBEDDER=onnx', async () => {
    const config = loadConfig({ DOCSEARCH_EMBEDDER: 'onnx', DOCSEARCH_EMBEDDER_MODEL_DIR: EMBEDDER });
    const e = await createEmbedder(config, new NetGuard([]));
    assert.equal(e.signature.provider, 'onnx');
    assert.equal(e.signature.dimension, 8);
  });
});

describe('onnx cross-encoder (tiny random-weight BERT, one logit)', () => {
  let rr: OnnxReranker;
  before(async () => { rr = await OnnxReranker.open({ modelDir: RERANKER }); });

  test('one raw logit per candidate, in input order, deterministic across batches', async () => {
    assert.deepEqual(rr.info, { provider: 'onnx', model: 'tiny-bert-reranker', output: 'logit' });
    const passages = Array.from({ length: 11 }, (_, i) => cand(`Passage ${i}: the duck ${'swims '.repeat(i)}on the water.`));
    const all = await rr.rerank({ text: 'where is the duck', lang: 'en' }, passages);
    assert.equal(all.length, 11);
    assert.ok(all.every(Number.isFinite));
    assert.ok(new Set(all.map((x) => x.toFixed(6))).size > 1, 'different passages score differently');
    const one = await rr.rerank({ text: 'where is the duck', lang: 'en' }, [passages[9]]);
    assert.ok(Math.abs(one[0] - all[9]) < 1e-5);
  });

  test('query and passage are encoded as a pair (token types differ), long passages are truncated', async () => {
    const q = 'football club stadium';
    const p = 'The city river runs past the university.';
    const [ab] = await rr.rerank({ text: q, lang: 'en' }, [cand(p)]);
    const [ba] = await rr.rerank({ text: p, lang: 'en' }, [cand(q)]);
    assert.notEqual(ab.toFixed(6), ba.toFixed(6));
    const [long] = await rr.rerank({ text: q, lang: 'en' }, [cand('word '.repeat(5000))]);
    assert.ok(Number.isFinite(long));
  });

  test('createReranker builds onnx (with its depth) and none from configuration', async () => {
    const net = new NetGuard([]);
    const onnx = await createReranker(loadConfig({ DOCSEARCH_RERANKER: 'onnx', DOCSEARCH_RERANKER_MODEL_DIR: RERANKER, DOCSEARCH_RERANK_DEPTH: '12' }), net);
    assert.equal(onnx?.reranker.info.provider, 'onnx');
    assert.equal(onnx?.depth, 12);
    assert.equal(await createReranker(loadConfig({ DOCSEARCH_RERANKER: 'none' }), net), null);
  });
});

describe('local model folders never download', () => {
  test('a folder without weights is refused, naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-model-'));
    try {
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) fs.copyFileSync(path.join(RERANKER, f), path.join(dir, f));
      await assert.rejects(OnnxReranker.open({ modelDir: dir }), (err: Error) => err.message.includes(dir) && /onnx\/model/.test(err.message));
      fs.rmSync(path.join(dir, 'tokenizer.json'));
      assert.throws(() => inspectModelDir(dir), /tokenizer\.json/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('configuration', () => {
  test('bad model settings stop start-up with the key named', () => {
    assert.throws(() => loadConfig({ DOCSEARCH_RERANKER: 'cohere' }), /DOCSEARCH_RERANKER must be/);
    assert.throws(() => loadConfig({ DOCSEARCH_RERANKER: 'onnx' }), /DOCSEARCH_RERANKER_MODEL_DIR/);
    assert.throws(() => loadConfig({ DOCSEARCH_RERANKER: 'onnx', DOCSEARCH_RERANKER_MODEL_DIR: '/nonexistent' }), /DOCSEARCH_RERANKER_MODEL_DIR/);
    assert.throws(() => loadConfig({ DOCSEARCH_RERANKER: 'http' }), /DOCSEARCH_RERANKER_URL/);
    assert.throws(() => loadConfig({ DOCSEARCH_RERANK_DEPTH: '0' }), /DOCSEARCH_RERANK_DEPTH/);
    assert.throws(() => loadConfig({ DOCSEARCH_RERANKER_CALIBRATION: '1,2' }), /DOCSEARCH_RERANKER_CALIBRATION/);
    assert.throws(() => loadConfig({ DOCSEARCH_EMBEDDER: 'onnx' }), /DOCSEARCH_EMBEDDER_MODEL_DIR/);
    assert.deepEqual(loadConfig({}).reranker, { provider: 'builtin', depth: undefined, calibration: undefined });
    assert.deepEqual(loadConfig({ DOCSEARCH_RERANKER: 'http', DOCSEARCH_RERANKER_URL: 'http://r/v1/rerank', DOCSEARCH_RERANKER_CALIBRATION: '0.1, 0.6,0.4' }).reranker?.calibration, { intercept: 0.1, reranker: 0.6, standard: 0.4 });
  });
});

describe('http reranker against a local rerank service', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ url: string; body: any; auth?: string }> = [];
  let mode: 'ok' | 'fail' | 'partial' = 'ok';
  before(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => { raw += c; });
      req.on('end', () => {
        const body = JSON.parse(raw);
        seen.push({ url: req.url!, body, auth: req.headers.authorization });
        if (mode === 'fail') { res.writeHead(503).end('busy'); return; }
        const docs: string[] = body.documents ?? body.texts;
        const score = (d: string) => (d.includes('duck') ? 0.9 : 0.1);
        let rows = docs.map((d, index) => ({ index, s: score(d) })).reverse();
        if (mode === 'partial') rows = rows.slice(1);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url === '/rerank' ? rows.map((r) => ({ index: r.index, score: r.s })) : { results: rows.map((r) => ({ index: r.index, relevance_score: r.s })) }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('endpoint and shape follow the URL', () => {
    assert.deepEqual(rerankEndpoint('http://h:1'), { endpoint: 'http://h:1/v1/rerank', shape: 'cohere' });
    assert.deepEqual(rerankEndpoint('http://h:1/v1/rerank/'), { endpoint: 'http://h:1/v1/rerank', shape: 'cohere' });
    assert.deepEqual(rerankEndpoint('http://h:1/rerank'), { endpoint: 'http://h:1/rerank', shape: 'tei' });
  });

  test('Cohere/Jina shape: results are mapped back by index; the key is sent', async () => {
    const rr = new HttpReranker({ url: base, model: 'bge-reranker', apiKey: 'k1', net: new NetGuard(['127.0.0.1']) });
    assert.deepEqual(rr.info, { provider: 'http', model: 'bge-reranker', output: 'unit' });
    seen.length = 0;
    const out = await rr.rerank({ text: 'duck', lang: 'en' }, [cand('a goose'), cand('the duck', 'Birds'), cand('a swan')]);
    assert.deepEqual(out, [0.1, 0.9, 0.1]);
    assert.equal(seen[0].url, '/v1/rerank');
    assert.deepEqual(seen[0].body, { model: 'bge-reranker', query: 'duck', documents: ['a goose', 'Birds\nthe duck', 'a swan'], top_n: 3, return_documents: false });
    assert.equal(seen[0].auth, 'Bearer k1');
  });

  test('TEI shape at /rerank', async () => {
    const rr = new HttpReranker({ url: `${base}/rerank`, net: new NetGuard(['127.0.0.1']) });
    seen.length = 0;
    assert.deepEqual(await rr.rerank({ text: 'duck', lang: null }, [cand('duck pond'), cand('car park')]), [0.9, 0.1]);
    assert.deepEqual(seen[0].body, { query: 'duck', texts: ['duck pond', 'car park'], raw_scores: false });
  });

  test('service errors, partial answers and blocked hosts are errors', async () => {
    const rr = new HttpReranker({ url: base, net: new NetGuard(['127.0.0.1']) });
    mode = 'fail';
    await assert.rejects(rr.rerank({ text: 'q', lang: null }, [cand('x')]), /503/);
    mode = 'partial';
    await assert.rejects(rr.rerank({ text: 'q', lang: null }, [cand('x'), cand('y')]), /scored 1 of 2/);
    mode = 'ok';
    const blocked = new HttpReranker({ url: base, net: new NetGuard([]) });
    await assert.rejects(blocked.rerank({ text: 'q', lang: null }, [cand('x')]));
  });
});
