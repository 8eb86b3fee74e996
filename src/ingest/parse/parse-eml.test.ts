// Tests of the EML parser on real messages (subject as title, header paragraph, HTML body preferred,
// image attachments as assets, text attachments parsed under their own heading with pages after the
// message's) and on generated nested messages (the recursion through parseDocument stops at depth 3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseDocument } from './index.ts';
import { parserFor } from './test-support.ts';

const dir = path.resolve(import.meta.dirname, '../../../../shared/data/docs/eml');
const parse = parserFor(dir);

test('tika_testRFC822_multipart_attachments.eml: header, HTML body, both text attachments', async () => {
  const doc = await parse('tika_testRFC822_multipart_attachments.eml');
  assert.equal(doc.title, 'EML 1');
  assert.equal(doc.pages, 3);
  assert.deepEqual(doc.blocks[0], { kind: 'heading', text: 'EML 1', level: 1, page: 1 });
  assert.match(doc.blocks[1].text, /^From: "?Bugs Bunny"? <Bugs\.Bunny@acme\.com>\nTo: .*\nAttachments: Test TxtA\.txt, Test TxtB\.txt$/);
  assert.equal(doc.blocks[2].text, 'This is the html body of the main msg.');
  const rest = doc.blocks.slice(3).map((b) => [b.kind, b.text, b.page]);
  assert.deepEqual(rest, [
    ['heading', 'Attachment: Test TxtA.txt', 2], ['paragraph', 'This is Test TXTA File for parser', 2],
    ['heading', 'Attachment: Test TxtB.txt', 3], ['paragraph', 'This is Test TXTB File for parser', 3],
  ]);
});

test('email-with-image.eml: the PNG attachment is an asset and an image block', async () => {
  const doc = await parse('email-with-image.eml');
  assert.equal(doc.images.length, 1);
  assert.equal(doc.images[0].name, 'unstructured_logo.png');
  assert.equal(doc.images[0].mediaType, 'image/png');
  assert.ok(doc.blocks.some((b) => b.kind === 'image' && b.assetName === 'unstructured_logo.png'));
  assert.match(doc.blocks[1].text, /Date: 2023-01-04T17:36:14Z/);
});

test('mime-different-plain-html.eml: the HTML alternative is used', async () => {
  const doc = await parse('mime-different-plain-html.eml');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.match(text, /This is the `text\/html` part\./);
  assert.doesNotMatch(text, /text\/plain part/);
});

/** A message whose only attachment is `inner` (a message/rfc822 part or a text file). */
function message(subject: string, body: string, inner?: { name: string; type: string; content: string }): string {
  const head = `From: a@example.com\r\nTo: b@example.com\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\n`;
  if (!inner) return `${head}Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;
  return `${head}Content-Type: multipart/mixed; boundary="b-${subject}"\r\n\r\n--b-${subject}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`
    + `--b-${subject}\r\nContent-Type: ${inner.type}\r\nContent-Disposition: attachment; filename="${inner.name}"\r\n\r\n${inner.content}\r\n--b-${subject}--\r\n`;
}

test('attachments nest through parseDocument, bounded at depth 3', async () => {
  const level3 = message('Level three', 'third body', { name: 'deep.txt', type: 'text/plain', content: 'deepest secret text' });
  const level2 = message('Level two', 'second body', { name: 'l3.eml', type: 'message/rfc822', content: level3 });
  const level1 = message('Level one', 'first body', { name: 'l2.eml', type: 'message/rfc822', content: level2 });
  const doc = await parseDocument({ data: Buffer.from(level1), filename: 'nested.eml' });
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.match(text, /first body[\s\S]*Attachment: l2\.eml[\s\S]*second body[\s\S]*Attachment: l3\.eml[\s\S]*third body/);
  assert.doesNotMatch(text, /deepest secret text/, 'the fourth level is not opened');
  const l2Heading = doc.blocks.find((b) => b.text === 'Level two')!;
  assert.equal(l2Heading.level, 3, 'attachment headings shift below "Attachment: ..."');
  assert.equal(doc.pages, 3);
});
