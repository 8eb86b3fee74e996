// contextTokens() must equal countTokens() of the rendered context exactly (tokens_estimated and billing
// depend on it), whatever the chunk texts: random texts built from the characters where BPE pre-tokens
// merge across words, lines and markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../../analysis/token-count.ts';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import { rng } from '../../../bench/lib/random.ts';
import { contextTokens, fitHeadings, headerTokens } from './context-tokens.ts';
import { renderContext, renderPieces, type RenderHit } from './render.ts';

const WORDS = ['the', 'Cells', 'p53', '1999', 'über', '中文', "don't", '/usr/bin', '(a)', '...', '-', '.', ',', '</doc>', '<doc', '[p3]', '😀', 'x/y', 'İstanbul', '\t', '  ', '\n', '\n\n', '.\n', '/\n/', 'ACGT'.repeat(3), '<|endoftext|>'];

function randomText(r: () => number, words: number): string {
  let s = '';
  for (let i = 0; i < words; i++) s += WORDS[Math.floor(r() * WORDS.length)] + (r() < 0.8 ? ' ' : '');
  return r() < 0.3 ? s : s.trim();
}

function chunk(doc: string, i: number, content: string, page: number): StoredChunk {
  return { id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0, page_start: page, page_end: page, heading_path: '', content, token_count: countTokens(content) };
}

function randomHits(r: () => number, oddText?: string): RenderHit[] {
  const hits: RenderHit[] = [];
  for (let h = 0; h < 1 + Math.floor(r() * 5); h++) {
    const doc = `d${Math.floor(r() * 3)}`;
    const start = Math.floor(r() * 20) * 3;
    const chunks = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, k) => chunk(doc, start + k, randomText(r, Math.floor(r() * 40)), 1 + Math.floor((start + k) / 2)));
    hits.push({ docId: doc, title: randomText(r, 3), chunks });
  }
  if (oddText !== undefined) hits[0].chunks.push(chunk(hits[0].docId, 999, oddText, 9));
  return hits;
}

test('contextTokens equals countTokens of the rendered context on random texts', () => {
  const r = rng(7);
  for (let n = 0; n < 400; n++) {
    const hits = randomHits(r);
    assert.equal(contextTokens(renderPieces(hits)), countTokens(renderContext(hits)), `case ${n}`);
  }
});

test('contextTokens: odd whitespace, long unbroken runs and cut chunks are counted exactly too', () => {
  const r = rng(11);
  for (const odd of ['a\u00a0 b c d', 'x '.repeat(10) + 'y'.repeat(5000) + ' z z', 'w '.repeat(3000)]) {
    const hits = randomHits(r, odd);
    assert.equal(contextTokens(renderPieces(hits)), countTokens(renderContext(hits)));
  }
  const hits = randomHits(r);
  const cut = { ...hits[0].chunks[0], content: 'cut short here and there', token_count: 1 };
  hits[0].chunks[0] = cut;
  assert.equal(contextTokens(renderPieces(hits), new Set([cut])), countTokens(renderContext(hits)));
  assert.equal(contextTokens(renderPieces([])), countTokens('<context></context>'));
});

test('contextTokens reads the stored token_count of verbatim chunk bodies instead of re-tokenising them', () => {
  const c = chunk('d', 0, 'Alpha beta gamma delta.', 1);
  const exact = countTokens(renderContext([{ docId: 'd', title: 't', chunks: [c] }]));
  assert.equal(contextTokens(renderPieces([{ docId: 'd', title: 't', chunks: [{ ...c, token_count: c.token_count + 5 }] }])), exact + 5);
});

test('headerTokens() equals countTokens() of the header line for random titles, odd whitespace and long words', () => {
  const r = rng(11);
  const titles = [
    ...Array.from({ length: 400 }, () => randomText(r, Math.floor(r() * 12))),
    'Title\u00a0with no-break space', 'x'.repeat(5000), '中文'.repeat(800), '', '"quoted" & <tagged>',
  ];
  for (const [i, title] of titles.entries()) {
    const doc = { doc_id: i % 2 ? `doc-${i}` : `0b5c${i}-4a1e-9f2b-${'e'.repeat(i % 7)}`, title };
    assert.equal(headerTokens(doc), countTokens(`<doc id="${doc.doc_id}" title="${doc.title}" pages="1-1">\n</doc>\n`), JSON.stringify(doc));
  }
});

test('fitHeadings: heading lines are kept while the context fits its target, dropped from the last one back; tokens exact', () => {
  const r = rng(17);
  let dropped = 0;
  let kept = 0;
  for (let trial = 0; trial < 200; trial++) {
    const hits = randomHits(r).map((h) => ({ ...h, chunks: h.chunks.map((c) => ({ ...c, heading_path: `${h.title} > Section ${c.chunk_index % 4} ${randomText(r, 4)}` })) }));
    const pieces = renderPieces(hits);
    const bare = pieces.filter((p) => !p.heading);
    const withAll = countTokens(pieces.map((p) => p.text).join(''));
    const without = countTokens(bare.map((p) => p.text).join(''));
    const target = without + Math.floor(r() * (withAll - without + 5));
    const out = fitHeadings(pieces, new Set(), target);
    const text = out.pieces.map((p) => p.text).join('');
    assert.equal(out.tokens, countTokens(text), 'exact count');
    assert.ok(out.tokens <= Math.max(target, without), `${out.tokens} > ${target}`);
    assert.deepEqual(out.pieces.filter((p) => !p.heading), bare, 'content is never dropped');
    const headings = pieces.filter((p) => p.heading);
    const left = out.pieces.filter((p) => p.heading);
    assert.deepEqual(left, headings.slice(0, left.length), 'the first headings are the ones kept');
    dropped += headings.length - left.length;
    kept += left.length;
  }
  assert.ok(dropped > 0 && kept > 0, `${dropped} dropped, ${kept} kept`);
  const tight = randomHits(rng(3)).map((h) => ({ ...h, chunks: h.chunks.map((c) => ({ ...c, heading_path: 'A > B' })) }));
  const bareTokens = countTokens(renderPieces(tight).filter((p) => !p.heading).map((p) => p.text).join(''));
  assert.ok(fitHeadings(renderPieces(tight), new Set(), 1).pieces.every((p) => !p.heading), 'content past its target and max: no headings');
  assert.equal(fitHeadings(renderPieces(tight), new Set(), 1).tokens, bareTokens);
});

test('fitHeadings: content already past its target (a lone large hit) keeps its headings up to max', () => {
  const r = rng(23);
  for (let trial = 0; trial < 100; trial++) {
    const hits = randomHits(r).map((h) => ({ ...h, chunks: h.chunks.map((c) => ({ ...c, heading_path: `${h.title} > Part ${c.chunk_index % 3}` })) }));
    const pieces = renderPieces(hits);
    const withAll = countTokens(pieces.map((p) => p.text).join(''));
    const without = countTokens(pieces.filter((p) => !p.heading).map((p) => p.text).join(''));
    if (withAll === without || without < 2) continue;
    const target = without - 1;
    const roomy = fitHeadings(pieces, new Set(), target, withAll);
    assert.equal(roomy.tokens, withAll, 'every heading fits under max');
    const max = without + Math.floor(r() * (withAll - without));
    const out = fitHeadings(pieces, new Set(), target, max);
    assert.ok(out.tokens <= Math.max(max, without), `${out.tokens} > ${max}`);
    assert.equal(out.tokens, countTokens(out.pieces.map((p) => p.text).join('')), 'exact count');
    assert.deepEqual(out.pieces.filter((p) => !p.heading), pieces.filter((p) => !p.heading), 'content is never dropped');
  }
});
