// Real-file tests of the plain-text and Markdown parsers: encodings (UTF-8, UTF-16, cp866), paragraph
// and list splitting, Markdown headings, fenced code, GFM tables, embedded HTML lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from './index.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const docs = path.resolve(repoRoot, '../shared/data/docs');
const parse = (rel: string) => parseDocument({ data: fs.readFileSync(path.join(docs, rel)), filename: path.basename(rel) });

test('UDHR_first_article_all.txt: UTF-8 paragraphs in many scripts', async () => {
  const doc = await parse('txt/UDHR_first_article_all.txt');
  assert.equal(doc.pages, 1);
  assert.equal(doc.title, undefined);
  assert.ok(doc.blocks.length > 300);
  assert.ok(doc.blocks.every((b) => b.page === 1 && b.kind !== 'heading'));
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(text.includes('是人都生而自由'));
  assert.ok(doc.blocks[0].text.startsWith('Universal Declaration of Human Right'));
});

test('UTF-16 text and cp866 text are decoded', async () => {
  const utf16 = await parse('txt/fake-text-utf-16.txt');
  assert.match(utf16.blocks[0].text, /^This is a test document/);
  assert.ok(utf16.blocks.some((b) => b.kind === 'list' && /^- Hamburgers are delicious/m.test(b.text)));
  const cp866 = await parse('txt/russian.cp866.txt');
  assert.match(cp866.blocks[0].text, /^Однажды, в студеную зимнюю пору/);
});

test('Markdown: headings, title, code fences, tables, HTML lists', async () => {
  const wiki = await parse('md/wiki.md');
  assert.equal(wiki.title, 'IBM');
  assert.ok(wiki.blocks.some((b) => b.kind === 'heading' && b.level === 2 && b.text === '1910s–1950s'));

  const code = await parse('md/codeblock.md');
  const codeBlocks = code.blocks.filter((b) => b.kind === 'code');
  assert.equal(codeBlocks.length, 3);
  assert.ok(codeBlocks[0].text.startsWith('```html\n<!DOCTYPE html>') && codeBlocks[0].text.endsWith('\n```'));

  const table = await parse('md/simple-table.md');
  assert.equal(table.blocks[0].kind, 'table');
  assert.equal(table.blocks[0].text.split('\n')[0], '| Item | Price | # In stock |');

  const nested = await parse('md/nested.md');
  const lists = nested.blocks.filter((b) => b.kind === 'list');
  assert.ok(lists[0].text.includes('\t\t\t\t- a.'), 'nesting preserved');
  assert.ok(lists.some((l) => /-\s+Second item with subitems:\n\s+-\s+Subitem 1/.test(l.text)), 'HTML list converted');
  assert.ok(!nested.blocks.some((b) => b.text.includes('<!--')));
});
