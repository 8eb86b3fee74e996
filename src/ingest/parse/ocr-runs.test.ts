// Unit tests of folding a sparse-mode reading into the main one (ocr-runs.ts foldSparse): confident
// words where the main reading has nothing or worse are taken, a piece of a word it has is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldSparse } from './ocr-runs.ts';
import type { OcrWord } from './ocr-tesseract.ts';

const word = (text: string, left: number, width: number, conf: number): OcrWord => ({ text, left, top: 100, width, height: 20, conf, block: 1, par: 1, line: 1 });

test('foldSparse: new words added, worse overlapped words replaced, pieces of main words ignored', () => {
  const main = [word('_LangChain', 100, 120, 68), word('Chu)k', 300, 90, 40)];
  const sparse = [
    word('Chain', 160, 60, 97), // a piece of "_LangChain", read more surely: adds nothing
    word('Chunking,', 300, 95, 90), // the same place read better: replaces "Chu)k"
    word('Your', 600, 50, 95), // where the main reading has nothing
    word('App', 700, 40, 30), // unsure: left out
  ];
  const folded = foldSparse(main, sparse, 60).map((w) => w.text);
  assert.deepEqual(folded, ['_LangChain', 'Chunking,', 'Your']);
});
