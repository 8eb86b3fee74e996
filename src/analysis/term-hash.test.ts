import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasTermHash, pairHash, pairHashSet, termHash, termHashSet } from './term-hash.ts';
import { phraseSkipTerms } from './stopwords.ts';
import { analyze } from './analyzer.ts';

test('termHash is 32-bit FNV-1a over UTF-16 code units', () => {
  // Reference values of FNV-1a 32 (IETF draft-eastlake-fnv test vectors: "" and "a", "foobar").
  assert.equal(termHash(''), 0x811c9dc5);
  assert.equal(termHash('a'), 0xe40c292c);
  assert.equal(termHash('foobar'), 0xbf9cf968);
});

test('termHashSet holds exactly the hashes of the distinct terms, sorted', () => {
  const set = termHashSet('cash flow  statement cash 3m flow 现金 ');
  const expected = [...new Set(['cash', 'flow', 'statement', '3m', '现金'].map(termHash))].sort((a, b) => a - b);
  assert.deepEqual([...set], expected);
  assert.equal(termHashSet('').length, 0);
});

test('hasTermHash agrees with membership in the term list (randomised)', () => {
  let seed = 7;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const word = () => Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => String.fromCharCode(97 + Math.floor(rnd() * 8))).join('');
  for (let trial = 0; trial < 200; trial++) {
    const terms = Array.from({ length: Math.floor(rnd() * 60) }, word);
    const set = termHashSet(terms.join(' '));
    const present = new Set(terms);
    for (let q = 0; q < 20; q++) {
      const t = word();
      // No collision among these short words (checked by the equality itself: a collision would fail it).
      assert.equal(hasTermHash(set, termHash(t)), present.has(t), `${t} in ${terms.join(' ')}`);
    }
  }
});

test('pairHash is the hash of the two terms joined by a space', () => {
  assert.equal(pairHash('cash', 'flow'), termHash('cash flow'));
  assert.notEqual(pairHash('cash', 'flow'), pairHash('flow', 'cash'), 'a pair is ordered');
});

test('pairHashSet holds the adjacent content-term pairs, stopwords skipped on both sides', () => {
  const tokens = analyze('The statement of cash flows and the cash flow of the year', 'en').join(' ');
  const set = pairHashSet(tokens, phraseSkipTerms('en'));
  const has = (a: string, b: string) => hasTermHash(set, pairHash(a, b));
  assert.ok(has('statement', 'cash'), '"of" and "the" are skipped, so the words around them are adjacent');
  assert.ok(has('cash', 'flow'));
  assert.ok(has('flow', 'year'));
  assert.ok(!has('statement', 'flow') && !has('of', 'cash') && !has('cash', 'statement'));
  assert.deepEqual([...set], [...new Set([...set])].sort((a, b) => a - b), 'ascending and distinct');
  assert.equal(pairHashSet('', phraseSkipTerms('en')).length, 0);
  assert.equal(pairHashSet('alone', new Set()).length, 0, 'one term has no pair');
  assert.equal(pairHashSet('word word', new Set()).length, 0, 'a repeated term is no pair');
});
