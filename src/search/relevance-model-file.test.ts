import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkRelevanceModelEmbedder, loadRelevanceModelFile, parseRelevanceModelFile, RELEVANCE_MODEL_FORMAT } from './relevance-model-file.ts';

const model = { intercept: -3, weights: { cov: 2, bm25_pm: 1.5, pair_cov: 0.5 }, source: 'test fit' };
const file = (extra: Record<string, unknown> = {}) => JSON.stringify({ format: RELEVANCE_MODEL_FORMAT, model, ...extra });

test('a model file: the model, its fallback (the model itself when absent), the recorded embedder', () => {
  const f = parseRelevanceModelFile(file(), 'm.json');
  assert.deepEqual(f.model, model);
  assert.equal(f.fallback, f.model);
  assert.equal(f.embedder, null);
  const fallback = { intercept: -2, weights: { cov: 2 }, source: 'no pairs' };
  const g = parseRelevanceModelFile(file({ fallback, embedder: { provider: 'onnx', model: 'e5-small', dimension: 384 } }), 'm.json');
  assert.deepEqual(g.fallback, fallback);
  assert.deepEqual(g.embedder, { provider: 'onnx', model: 'e5-small', dimension: 384 });
});

test('a bad model file is refused with a message naming the key and what is wrong', () => {
  const bad: Array<[string, RegExp]> = [
    ['{not json', /not JSON/],
    [JSON.stringify({ model }), /format must be/],
    [file({ model: { ...model, weights: { bm25_rel: 1 } } }), /bm25_rel is not a feature the service computes/],
    [file({ model: { ...model, weights: { cov: 'high' } } }), /weights\.cov must be a finite number/],
    [file({ model: { ...model, weights: {} } }), /at least one feature/],
    [file({ model: { ...model, intercept: null } }), /intercept must be a finite number/],
    [file({ model: { ...model, source: '' } }), /source must say/],
    [file({ embedder: { provider: 'onnx' } }), /embedder must be/],
  ];
  for (const [text, message] of bad) {
    assert.throws(() => parseRelevanceModelFile(text, 'm.json'), (err: Error) => /^config: DOCSEARCH_RELEVANCE_MODEL \(m\.json\)/.test(err.message) && message.test(err.message), text);
  }
  assert.throws(() => loadRelevanceModelFile(path.join(os.tmpdir(), 'no-such-relevance-model.json')), /DOCSEARCH_RELEVANCE_MODEL .*cannot be read \(ENOENT\)/);
});

test('a model fitted with another embedder is refused; one without a recorded embedder is not checked', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relevance-model-'));
  try {
    const p = path.join(dir, 'm.json');
    fs.writeFileSync(p, file({ embedder: { provider: 'onnx', model: 'e5-small', dimension: 384 } }));
    const f = loadRelevanceModelFile(p);
    checkRelevanceModelEmbedder(f, { provider: 'onnx', model: 'e5-small', dimension: 384 });
    assert.throws(() => checkRelevanceModelEmbedder(f, { provider: 'builtin', model: 'glove-6b-100d', dimension: 100 }), /fitted with the embedder onnx\/e5-small \(384-d\).*configured embedder is builtin\/glove-6b-100d/);
    checkRelevanceModelEmbedder(parseRelevanceModelFile(file(), p), { provider: 'builtin', model: 'glove-6b-100d', dimension: 100 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
