import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasTermHash, termHash, termHashSet } from './term-hash.ts';

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
