// The builtin reranker over the real GloVe table (shared test cache, built on first use) and the fitted
// coefficients: its features mean what they say, and it prefers the passage that answers the query.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBuiltinEmbedder, type BuiltinEmbedder } from './builtin-embedder.ts';
import { rerankFeatures, sentences } from './builtin-reranker-features.ts';
import { BuiltinReranker, EVIDENCE_CACHE_BYTES } from './builtin-reranker.ts';
import { RERANK_MODEL } from './builtin-reranker-model.ts';
import type { RerankCandidate } from './reranker.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let glove: BuiltinEmbedder;
before(async () => { glove = await createBuiltinEmbedder({ dataDir: path.join(repoRoot, '.tmp', 'test-cache') }); });

const cand = (title: string, text: string, score = 0.3): RerankCandidate => ({
  title, text, first: { ann: 0.5, bm25: 5, rrf: 1 / 65, score, features: { cos: 0.5, bm25_per_term: 0.3 } },
});

test('sentences: split at sentence ends, short fragments skipped, no boundary = one sentence', () => {
  assert.deepEqual(sentences('Background. Vitamin D levels were measured in 300 adults. Results follow here now!'), [
    'Vitamin D levels were measured in 300 adults.', 'Results follow here now!',
  ]);
  assert.deepEqual(sentences('no boundary here'), ['no boundary here']);
});

test('features: title and best-sentence coverage, gaps to the best candidate', () => {
  const pool = [
    cand('Vitamin D deficiency and bone fractures', 'We studied elderly adults. Vitamin D deficiency increased the risk of hip fractures.'),
    cand('Gene expression in yeast', 'Ribosomal genes were expressed under stress. Nothing about vitamins here.'),
  ];
  const [a, b] = rerankFeatures('vitamin D deficiency causes fractures', 'en', pool, (t) => glove.embedSync(t));
  assert.ok(a.title_cov > 0.5 && b.title_cov === 0, `${a.title_cov} ${b.title_cov}`);
  assert.ok(a.sent_cov > b.sent_cov);
  assert.ok(a.sent_cos > b.sent_cos);
  assert.equal(a.title_cov_gap, 0);
  assert.ok(b.sent_cov_gap < 0 && b.sent_cos_gap < 0);
  assert.ok(Math.abs(a.std - Math.log(0.3 / 0.7)) < 1e-9);
});

test('reranking: the answering passage outranks a lexically similar distractor; outputs are probabilities', async () => {
  const rr = new BuiltinReranker(glove);
  assert.equal(rr.depth, RERANK_MODEL.depth);
  assert.deepEqual(rr.info, { provider: 'builtin', model: 'docsearch-ltr-v1', output: 'probability' });
  const pool = [
    cand('Statins in heart failure', 'Statin therapy was given to patients with heart failure. Mortality did not change.', 0.35),
    cand('Statins reduce cardiovascular events', 'In a randomised trial, statins reduced the risk of myocardial infarction in adults with high cholesterol.', 0.3),
    cand('Soil bacteria', 'Bacterial communities in agricultural soil shift with nitrogen fertiliser.', 0.05),
  ];
  const p = await rr.rerank({ text: 'Statins reduce the risk of myocardial infarction', lang: 'en' }, pool);
  assert.equal(p.length, 3);
  assert.ok(p.every((x) => x > 0 && x < 1));
  assert.ok(p[1] > p[0], `answer ${p[1]} vs distractor ${p[0]}`);
  assert.ok(p[2] < p[0]);
  assert.deepEqual(await rr.rerank({ text: 'x', lang: null }, []), []);
});

test('passage evidence cache: same outputs cold, warm, under eviction and per language', async () => {
  const pool = [
    cand('Statins in heart failure', 'Statin therapy was given to patients with heart failure. Mortality did not change.', 0.35),
    cand('Statins reduce cardiovascular events', 'In a randomised trial, statins reduced the risk of myocardial infarction in adults with high cholesterol.', 0.3),
  ];
  const q = { text: 'Statins reduce the risk of myocardial infarction', lang: 'en' };
  const expected = rerankFeatures(q.text, q.lang, pool, (t) => glove.embedSync(t));
  const cached = new BuiltinReranker(glove);
  const cold = await cached.rerank(q, pool);
  const warm = await cached.rerank(q, pool);
  const tiny = await new BuiltinReranker(glove, RERANK_MODEL, 1).rerank(q, pool);
  assert.deepEqual(warm, cold);
  assert.deepEqual(tiny, cold, 'a cache too small to hold anything changes nothing');
  // the fitted model over the uncached features gives the same probabilities
  const z = expected.map((f) => RERANK_MODEL.intercept + Object.entries(RERANK_MODEL.weights).reduce((s, [k, w]) => s + w * f[k as keyof typeof f], 0));
  assert.deepEqual(cold.map((p) => Math.round(p * 1e9)), z.map((v) => Math.round((1 / (1 + Math.exp(-v))) * 1e9)));
  // evidence is keyed by language: an unstemmed query does not reuse English stems
  const plain = await cached.rerank({ text: q.text, lang: null }, pool);
  assert.deepEqual(plain, await new BuiltinReranker(glove).rerank({ text: q.text, lang: null }, pool));
});

test('evidence work yields to the event loop between slices, with the same outputs', async () => {
  const pool = Array.from({ length: 6 }, (_, i) => cand(`Passage ${i}`, `Statin therapy number ${i} was given to adults with heart failure. Mortality did not change in trial ${i}.`, 0.3));
  const q = { text: 'Statins reduce the risk of myocardial infarction', lang: 'en' };
  const whole = await new BuiltinReranker(glove).rerank(q, pool);
  // A slice of 0 ms yields after every uncached passage: a macrotask queued before the rerank runs
  // before the rerank has finished.
  let ranBetween = false;
  setImmediate(() => { ranBetween = true; });
  let finishedFirst = false;
  const sliced = new BuiltinReranker(glove, RERANK_MODEL, EVIDENCE_CACHE_BYTES, 0).rerank(q, pool).then((p) => { finishedFirst = !ranBetween; return p; });
  assert.deepEqual(await sliced, whole);
  assert.equal(finishedFirst, false, 'the rerank gave the event loop a turn');
});
