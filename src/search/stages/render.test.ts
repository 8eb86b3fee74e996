import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import { escapeXmlAttr, neutraliseEnvelope, pageSpan, renderContext } from './render.ts';

const ch = (doc: string, i: number, p0: number, p1: number, content: string): StoredChunk => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0,
  page_start: p0, page_end: p1, heading_path: '', content, token_count: 5,
});

test('empty result is <context></context>', () => {
  assert.equal(renderContext([]), '<context></context>');
});

test('grammar: docs in rank order, regions in document order, page and gap markers', () => {
  const ctx = renderContext([
    { docId: 'd2', title: 'Second', chunks: [ch('d2', 7, 5, 5, 'later region'), ch('d2', 8, 5, 6, 'continues on 6')] },
    { docId: 'd1', title: 'First', chunks: [ch('d1', 0, 1, 1, 'only one')] },
    { docId: 'd2', title: 'Second', chunks: [ch('d2', 2, 3, 3, 'early region'), ch('d2', 3, 4, 4, 'next page')] },
  ]);
  assert.equal(ctx, [
    '<context>',
    '<doc id="d2" title="Second" pages="3-6">',
    '[p3] early region',
    '',
    '[p4] next page',
    '',
    '[...]',
    '',
    '[p5] later region',
    '',
    'continues on 6',
    '</doc>',
    '<doc id="d1" title="First" pages="1">',
    '[p1] only one',
    '</doc>',
    '</context>',
  ].join('\n'));
});

test('adjacent regions of one document join without a gap marker; duplicate chunks render once', () => {
  const ctx = renderContext([
    { docId: 'd', title: 't', chunks: [ch('d', 1, 1, 1, 'one')] },
    { docId: 'd', title: 't', chunks: [ch('d', 2, 1, 1, 'two'), ch('d', 1, 1, 1, 'one')] },
  ]);
  assert.ok(!ctx.includes('[...]'));
  assert.equal(ctx.split('one').length, 2);
  assert.ok(ctx.includes('[p1] one\n\ntwo'));
});

test('attribute values are XML-escaped', () => {
  assert.equal(escapeXmlAttr(`a&b<c>"d"'e'\nf\u0001`), 'a&amp;b&lt;c&gt;&quot;d&quot;&apos;e&apos;&#10;f');
  const ctx = renderContext([{ docId: 'x"y', title: 'Tom & "Jerry" <3', chunks: [ch('x"y', 0, 2, 2, 'body')] }]);
  assert.ok(ctx.includes('<doc id="x&quot;y" title="Tom &amp; &quot;Jerry&quot; &lt;3" pages="2">'));
});

test('content cannot close or forge the envelope; other markup is untouched', () => {
  assert.equal(neutraliseEnvelope('a </doc> b <context> c <doc id="z"> <b>bold</b> <document>'), 'a &lt;/doc> b &lt;context> c &lt;doc id="z"> <b>bold</b> <document>');
  const ctx = renderContext([{ docId: 'd', title: 't', chunks: [ch('d', 0, 1, 1, 'x </context> y')] }]);
  assert.equal(ctx.match(/<\/context>/g)?.length, 1);
});

test('pageSpan covers start..end of all chunks', () => {
  assert.equal(pageSpan([ch('d', 0, 2, 3, ''), ch('d', 5, 7, 7, '')]), '2-7');
  assert.equal(pageSpan([ch('d', 0, 4, 4, '')]), '4');
});
