// SearchService end to end over the real stores: SQLite control plane, LanceDB namespace, builtin GloVe
// embedder, real analyser, and real text (BEIR SciFact abstracts split into chunks). Documents are
// written straight into both stores (the ingest pipeline is tested elsewhere), including a half-ingested
// document (chunks, no row) and one being deleted, which must never appear.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, initAnalysis } from '../analysis/analyzer.ts';
import { countTokens } from '../analysis/token-count.ts';
import { createBuiltinEmbedder } from '../models/builtin-embedder.ts';
import { openControlPlane, type ControlPlane } from '../storage/db.ts';
import { openLanceIndex, type LanceNamespaceIndex } from '../storage/lance-index.ts';
import type { ChunkRecord } from '../storage/namespace-index.ts';
import { SearchService } from './search-service.ts';
import type { RetrievalContextResponse, SearchJsonResponse, SearchRequest } from './types.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scifact = path.resolve(repoRoot, '../shared/data/beir/scifact');
const PROJECT = 'p_test';
const NS = 'ns_search_test';
const ctx = { projectId: PROJECT, namespace: NS };

let dir: string;
let cp: ControlPlane;
let index: LanceNamespaceIndex;
let service: SearchService;
const docs = new Map<string, { title: string; chunks: string[] }>();
let queryText = '';
let relevantDoc = '';
const HALF = 'half-ingested';
const DELETING = 'being-deleted';

before(async () => {
  await initAnalysis();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-service-'));
  cp = await openControlPlane({ dataDir: dir });
  index = await openLanceIndex({ uri: path.join(dir, 'lance') });
  const embedder = await createBuiltinEmbedder({ dataDir: path.join(repoRoot, '.tmp', 'test-cache') });
  service = new SearchService({ cp, index, embedder });

  const corpus = fs.readFileSync(path.join(scifact, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 40)
    .map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
  // A query made of the title of one document: a clear match.
  relevantDoc = corpus[7]._id;
  queryText = corpus[7].title;
  for (const d of corpus) {
    const sentences = d.text.match(/[^.!?]+[.!?]+/g) ?? [d.text];
    const chunks: string[] = [];
    for (let i = 0; i < sentences.length; i += 2) chunks.push(sentences.slice(i, i + 2).join(' ').trim());
    docs.set(d._id, { title: d.title, chunks });
  }
  // Two documents that repeat the clear match's title verbatim but must stay invisible.
  docs.set(HALF, { title: 'half', chunks: [queryText, queryText] });
  docs.set(DELETING, { title: 'deleting', chunks: [queryText] });

  for (const [docId, d] of docs) {
    const vectors = await embedder.embedDocuments(d.chunks);
    const rows: ChunkRecord[] = d.chunks.map((content, i) => ({
      id: `${docId}:${i}`, doc_id: docId, source_job_id: 'job', chunk_index: i, chunkset_index: i < 4 ? 0 : 1,
      page_start: Math.floor(i / 2) + 1, page_end: Math.floor(i / 2) + 1, heading_path: d.title, content,
      tokens: analyze(`${d.title}\n${content}`, 'en').join(' '), token_count: countTokens(content), vector: vectors[i],
    }));
    await index.addChunks(NS, rows, embedder.signature);
    if (docId === HALF) continue;
    await cp.db.insertInto('documents').values({
      project_id: PROJECT, doc_id: docId, state: docId === DELETING ? 'deleting' : 'visible', title: d.title, language: 'en',
      filename: `${docId}.txt`, canonical_url: '', content_type: 'text/plain', pages: Math.ceil(d.chunks.length / 2),
      chunkset_count: 2, chunk_count: d.chunks.length, image_count: 0, table_count: 0, ingested_at: new Date().toISOString(),
      source_job_id: 'job', bm25_state: 'pending', blob_key: '', size: 0, attributes: '{}',
      unencrypted_strings: JSON.stringify(docId === relevantDoc ? { team: 'Search' } : { team: 'other' }),
    }).execute();
  }
});

after(async () => {
  await index?.close();
  await cp?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const json = (req: Omit<SearchRequest, 'format'>, inDoc = false) => service.search(ctx, { ...req, format: 'json' }, { inDoc }) as Promise<SearchJsonResponse>;
const prompt = (req: SearchRequest, inDoc = false) => service.search(ctx, req, { inDoc }) as Promise<RetrievalContextResponse>;

test('json: the clear match ranks first with a high calibrated score and its raw signals', async () => {
  const r = await json({ query: queryText });
  assert.ok(r.result_count > 0);
  assert.equal(r.result_count, r.results.length);
  assert.equal(r.namespace, NS);
  assert.equal(r.query, queryText);
  const top = r.results[0];
  assert.equal(top.doc_id, relevantDoc);
  assert.ok(top.score >= 0.5, `top score ${top.score}`);
  assert.ok(top.scores.ann !== null && top.scores.bm25 !== null && top.scores.rrf > 0);
  assert.equal(top.scores.reranker, null);
  assert.equal(top.title, docs.get(relevantDoc)!.title);
  assert.ok(top.pages.length >= 1 && top.pages.every((p, i) => i === 0 || p > top.pages[i - 1]));
  assert.deepEqual(top.chunk_indices, [...top.chunk_indices].sort((a, b) => a - b));
  for (const h of r.results) assert.ok(h.score >= 0.3 && h.score <= 1);
});

test('a question wrapped in instructions is embedded as the question: its hits keep their cosine', async () => {
  const question = `${queryText.replace(/[.\s]+$/, '')}?`;
  const plain = await json({ query: question, min_relevance: 0 });
  const wrapped = await json({ query: `Assume you are an analyst preparing a briefing. ${question} Answer using the details in the provided documents.`, min_relevance: 0 });
  const top = plain.results[0];
  const same = wrapped.results.find((h) => h.doc_id === top.doc_id && h.chunk_indices.join() === top.chunk_indices.join());
  assert.ok(same, 'the plain question\'s best hit is among the wrapped question\'s');
  assert.equal(same.scores.ann, top.scores.ann);
});

test('prompt_ready: grammar, token estimate, mode and units', async () => {
  const r = await prompt({ query: queryText, retrieval_tier: 'advanced' });
  assert.match(r.context, new RegExp(`^<context>\\n<doc id="${relevantDoc}" title="[^"]*" pages="\\d+(-\\d+)?">\\n\\[p\\d+\\] `));
  assert.ok(r.context.endsWith('</doc>\n</context>'));
  assert.equal(r.tokens_estimated, countTokens(r.context));
  assert.equal(r.mode, 'standard');
  assert.equal(r.search_units, 1);
  assert.equal(r.detected_lang, 'en');
  assert.equal(r.assets, undefined);
});

test('documents without a visible control-plane row never appear', async () => {
  const r = await json({ query: queryText, min_relevance: 0 });
  const ids = new Set(r.results.map((h) => h.doc_id));
  assert.ok(!ids.has(HALF) && !ids.has(DELETING));
  await assert.rejects(prompt({ query: queryText, doc_filter: DELETING }, true), (e: { code?: string }) => e.code === 'document_not_found');
  await assert.rejects(prompt({ query: queryText, doc_filter: 'nope' }), (e: { code?: string }) => e.code === 'document_not_found');
});

test('searchInDoc, doc_ids and exclude_doc_ids scope the result', async () => {
  const other = [...docs.keys()].find((d) => d !== relevantDoc && d !== HALF && d !== DELETING)!;
  const inDoc = await json({ query: queryText, doc_filter: other, min_relevance: 0 }, true);
  assert.ok(inDoc.results.length > 0 && inDoc.results.every((h) => h.doc_id === other));
  const restricted = await json({ query: queryText, doc_ids: [other], min_relevance: 0 });
  assert.ok(restricted.results.every((h) => h.doc_id === other));
  const excluded = await json({ query: queryText, exclude_doc_ids: [relevantDoc], min_relevance: 0 });
  assert.ok(excluded.results.length > 0 && excluded.results.every((h) => h.doc_id !== relevantDoc));
  const byStrings = await json({ query: queryText, unencrypted_strings_match: { TEAM: 'sea*' }, min_relevance: 0 });
  assert.ok(byStrings.results.length > 0 && byStrings.results.every((h) => h.doc_id === relevantDoc));
});

test('attribute filters on never-used attributes, and min_top_relevance, give an empty result', async () => {
  const a = await prompt({ query: queryText, attribute_filters: [{ attr: 'color', op: 'eq', value: 'red' }] });
  assert.equal(a.context, '<context></context>');
  assert.equal(a.result_count, 0);
  const legacy = await json({ query: queryText, meta_tags_any: ['x'] });
  assert.equal(legacy.result_count, 0);
  const top = await json({ query: queryText, min_top_relevance: 1 });
  assert.deepEqual([top.result_count, top.results_dropped], [0, 0]);
});

test('token budget: a small target drops hits and counts them; expansion follows expand_tightness', async () => {
  const wide = await json({ query: 'cells disease patients treatment', min_relevance: 0 });
  const small = await prompt({ query: 'cells disease patients treatment', min_relevance: 0, target_tokens: 100, max_tokens: 300 });
  assert.ok(wide.result_count > 1);
  assert.ok(small.results_dropped > 0);
  assert.ok(small.result_count >= 1 && small.result_count < wide.result_count + wide.results_dropped);
  assert.ok(small.tokens_estimated <= 300 + 40, `tokens ${small.tokens_estimated}`);
  const none = await json({ query: queryText, expand_tightness: 0 });
  const whole = await json({ query: queryText, expand_tightness: 1 });
  const topNone = none.results[0];
  const topWhole = whole.results[0];
  assert.equal(topWhole.doc_id, topNone.doc_id);
  assert.ok(topWhole.chunk_indices.length >= topNone.chunk_indices.length);
  const setOf = (i: number) => (i < 4 ? 0 : 1);
  const nChunks = docs.get(topWhole.doc_id)!.chunks.length;
  const wholeSet = Array.from({ length: nChunks }, (_, i) => i).filter((i) => setOf(i) === setOf(topWhole.chunk_indices[0]));
  // Tightness 1 covers the hit's chunkset, except chunks owned by other hits of the same document.
  const owned = new Set(whole.results.filter((h) => h !== topWhole && h.doc_id === topWhole.doc_id).flatMap((h) => h.chunk_indices));
  assert.deepEqual(topWhole.chunk_indices, wholeSet.filter((i) => !owned.has(i)));
});
