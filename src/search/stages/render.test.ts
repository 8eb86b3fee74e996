import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import { escapeXmlAttr, headingLine, neutraliseEnvelope, pageSpan, renderContext } from './render.ts';

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

test('section headings: a "## " line wherever a chunk\'s headings change, without a leading heading equal to the title', () => {
  const h = (i: number, path: string, content: string, page = 1): StoredChunk => ({ ...ch('d', i, page, page, content), heading_path: path });
  const ctx = renderContext([{ docId: 'd', title: 'Migration plan', chunks: [
    h(0, 'Migration plan > Billing cutover', 'The cutover happens on Saturday.'),
    h(1, 'Migration plan > Billing cutover', 'Invoices pause for a day.'),
    h(2, 'Migration plan > Rollback', 'We roll back within four hours.', 2),
    h(5, 'Migration plan', 'Contacts.', 3),
  ] }]);
  assert.equal(ctx, [
    '<context>',
    '<doc id="d" title="Migration plan" pages="1-3">',
    '## Billing cutover',
    '[p1] The cutover happens on Saturday.',
    '',
    'Invoices pause for a day.',
    '',
    '## Rollback',
    '[p2] We roll back within four hours.',
    '',
    '[...]',
    '',
    '[p3] Contacts.',
    '</doc>',
    '</context>',
  ].join('\n'));
  assert.equal(headingLine('Report > Q1 <doc id="x">\nResults', 'Other'), '## Report > Q1 &lt;doc id="x"> Results\n', 'one line, envelope tags neutralised');
  assert.equal(headingLine('', 'T'), '');
});
