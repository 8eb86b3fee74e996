// The cut of a lone hit larger than max_tokens: the rendered context must stay within the
// ceiling for any text, title and page span, although the budget works on estimates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../../analysis/token-count.ts';
import type { NamespaceIndex, StoredChunk } from '../../storage/namespace-index.ts';
import { admitWithinBudget } from './budget.ts';
import { chunkTokens, fillText, fitChunks, hydrateChunks, truncateChunks, truncateToTokens } from './hit-content.ts';
import { renderContext } from './render.ts';

const chunk = (content: string, pages: [number, number], i = 0): StoredChunk => ({
  id: `d1:${i}`, doc_id: 'd1', source_job_id: 'j', chunk_index: i, chunkset_index: 0,
  page_start: pages[0], page_end: pages[1], heading_path: '', content, token_count: countTokens(content),
});

test('a lone oversized hit renders within max_tokens (the estimate alone overshot by 1-3 tokens)', () => {
  const texts = ['The quick brown fox jumps over the lazy dog. '.repeat(60), '日本語のテキストです。'.repeat(80), 'Ünïcödé wörds and emojis 🎉🎉 '.repeat(50)];
  let overshootWithoutFit = 0;
  for (const text of texts) for (const title of ['Duck', 'A long title with many words in it']) for (const pages of [[1, 1], [3, 12]] as const) {
    const chunks = [chunk(text, [pages[0], pages[1]]), chunk(text, [pages[1], pages[1]], 1)];
    const docOverhead = countTokens(`<doc id="d1" title="${title}" pages="1-1">\n</doc>\n`);
    const measure = (cs: StoredChunk[]) => countTokens(renderContext([{ docId: 'd1', title, chunks: cs }]));
    for (const max of [100, 137, 250]) {
      const r = admitWithinBudget([{ docId: 'd1', score: 0.9, tokens: chunkTokens(chunks), coreTokens: chunkTokens(chunks), docOverhead }], { target: max, max });
      const truncateTo = r.admitted[0].truncateTo!;
      assert.ok(truncateTo > 0);
      overshootWithoutFit = Math.max(overshootWithoutFit, measure(truncateChunks(chunks, truncateTo)) - max);
      const fitted = fitChunks(chunks, truncateTo, max, measure);
      const n = measure(fitted);
      assert.ok(n <= max, `${max}: ${n} tokens (${title}, pages ${pages})`);
      assert.ok(n >= max - 12, `${max}: only ${n} tokens used`);
    }
  }
  assert.ok(overshootWithoutFit > 0, 'the case this guards against no longer arises');
});

test('a token cut never ends in a broken character', () => {
  for (const n of [2, 4, 5]) {
    const cut = truncateToTokens('🎉'.repeat(20), n);
    assert.ok(!cut.includes('\uFFFD'), JSON.stringify(cut));
    assert.ok(countTokens(cut) <= n);
    assert.ok(cut.length >= 2);
  }
});

test('hydrateChunks reads the text of every shown chunk in one read, keeping order and dropping vanished rows', async () => {
  const stored = [0, 1, 2, 3].map((i) => chunk(`text ${i}`, [1, 1], i));
  const layout = (c: StoredChunk): StoredChunk => ({ ...c, content: '', heading_path: '', source_job_id: '' });
  const calls: Array<Array<{ doc_id: string; chunk_index: number }>> = [];
  const index = { async getChunksAt(_ns: string, refs: Array<{ doc_id: string; chunk_index: number }>) {
    calls.push(refs.map((r) => ({ doc_id: r.doc_id, chunk_index: r.chunk_index })));
    return stored.filter((c) => c.chunk_index !== 3 && refs.some((r) => r.doc_id === c.doc_id && c.chunk_index === r.chunk_index)).reverse();
  } } as unknown as NamespaceIndex;
  const hits = [{ docId: 'd1', chunks: [layout(stored[1]), layout(stored[2])] }, { docId: 'd1', chunks: [layout(stored[3])] }, { docId: 'd1', chunks: [] }];
  await hydrateChunks(index, 'ns', hits);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0], [1, 2, 3].map((i) => ({ doc_id: 'd1', chunk_index: i })));
  assert.deepEqual(hits[0].chunks, [stored[1], stored[2]]);
  assert.deepEqual(hits[1].chunks, []); // chunk 3 vanished (document deleted meanwhile)
});

test('fillText gives chunks read without text their text in place, in one read, and leaves the others alone', async () => {
  const stored = [0, 1, 2].map((i) => chunk(`text ${i}`, [1, 1], i));
  const bare = (c: StoredChunk): StoredChunk => ({ ...c, content: '', heading_path: '', source_job_id: '', textOmitted: true });
  const asked: number[][] = [];
  const index = { async getChunksAt(_ns: string, refs: StoredChunk[]) {
    asked.push(refs.map((r) => r.chunk_index));
    return stored.filter((c) => c.chunk_index !== 2 && refs.some((r) => r.chunk_index === c.chunk_index));
  } } as unknown as NamespaceIndex;
  const chunks = [bare(stored[0]), { ...stored[1], content: 'kept' }, bare(stored[2])];
  await fillText(index, 'ns', chunks);
  assert.deepEqual(asked, [[0, 2]]);
  assert.deepEqual(chunks[0], stored[0]);
  assert.equal(chunks[1].content, 'kept');
  assert.ok(chunks[2].textOmitted && chunks[2].content === ''); // row vanished: stays without text
});
