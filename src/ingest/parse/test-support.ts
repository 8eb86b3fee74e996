// Helpers shared by the parser tests (not used by the service): parse a file of the shared evaluation
// documents by name, and read a GFM table back into cells so tests compare cell values, not Markdown.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { marked, type Tokens } from 'marked';
import { parseDocument } from './index.ts';

/** A parse function for files of `dir` (absolute), named as the test names them. */
export function parserFor(dir: string): (name: string) => ReturnType<typeof parseDocument> {
  return (name) => parseDocument({ data: fs.readFileSync(path.join(dir, name)), filename: name });
}

/**
 * Cells of the first GFM table in `markdown`, header row first.
 * @throws AssertionError when the text holds no table
 */
export function tableCells(markdown: string): string[][] {
  const token = marked.lexer(markdown).find((t) => t.type === 'table') as Tokens.Table | undefined;
  assert.ok(token, `not a GFM table:\n${markdown}`);
  return [token.header.map((c) => c.text), ...token.rows.map((r) => r.map((c) => c.text))];
}
