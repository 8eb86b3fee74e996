import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob, globMatch } from './glob-match.ts';

test('globMatch: * any run, ? one character, case-insensitive, literal otherwise', () => {
  assert.ok(globMatch('report-*.pdf', 'REPORT-2024.PDF'));
  assert.ok(globMatch('a?c', 'abc'));
  assert.ok(!globMatch('a?c', 'abbc'));
  assert.ok(globMatch('exact', 'Exact'));
  assert.ok(!globMatch('exact', 'exactly'));
  assert.ok(!globMatch('exact', 'exac'));
  assert.ok(globMatch('a.b(c)+[d]', 'A.B(C)+[D]'));
  assert.ok(!globMatch('a.b', 'axb'));
  assert.ok(globMatch('*', ''));
  assert.ok(!globMatch('?', ''));
  assert.ok(globMatch('', ''));
  assert.ok(!globMatch('', 'a'));
  assert.ok(globMatch('line*', 'line1\nline2'));
  assert.ok(globMatch('https://*/x?y', 'https://a.example/b/x1y'));
  assert.ok(globMatch('**a**', 'bab'));
});

test('globMatch: Unicode — ? is one code point, case folding beyond ASCII', () => {
  assert.ok(globMatch('?', '😀'));
  assert.ok(globMatch('a?b', 'a😀b'));
  assert.ok(globMatch('ΣΊΣΥΦΟΣ', 'σίσυφος'));
  assert.ok(globMatch('straße*', 'STRAßE 1'));
  assert.ok(globMatch('köln', 'KÖLN'));
  assert.ok(!globMatch('köln', 'koln'));
});

test('globMatch: patterns wider than one 32-bit word carry states across words', () => {
  const long = 'x'.repeat(40);
  assert.ok(globMatch(`${long}*${long}`, `${long}---${long}`));
  assert.ok(!globMatch(`${long}*${long}`, `${long}---${long.slice(1)}`));
  assert.ok(globMatch(`${'?'.repeat(31)}*z`, `${'a'.repeat(31)}z`));
  assert.ok(globMatch(`${'?'.repeat(31)}*z`, `${'a'.repeat(31)}bbz`));
  assert.ok(!globMatch(`${'?'.repeat(31)}*z`, `${'a'.repeat(30)}z`));
});

test('globMatch: ReDoS shape *a*a*a*ab against 1,000 a answers correctly', () => {
  const value = 'a'.repeat(1000);
  assert.equal(globMatch('*a*a*a*ab', value), false);
  assert.equal(globMatch('*a*a*a*ab', `${value}b`), true);
  const evil = `${'*a'.repeat(500)}b`; // 1,001-character pattern
  assert.equal(globMatch(evil, value), false);
  assert.equal(globMatch(evil, `${value}b`), true);
  assert.equal(globMatch(`*${'a'.repeat(1000)}b`, value + value), false);
});

/** Reference: the former regular-expression translation (correct, but exponential on some inputs). */
function regexGlob(pattern: string, value: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\*?]/g, (ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : `\\${ch}`));
  return new RegExp(`^${re}$`, 'isu').test(value);
}

test('globMatch agrees with the regular-expression reference on 5,000 seeded random cases', () => {
  let seed = 13;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = ['a', 'A', 'b', '/', '\n', '.', 'é', 'É', '😀'];
  const patAlphabet = [...alphabet, '*', '?'];
  for (let i = 0; i < 5000; i++) {
    const pattern = Array.from({ length: rnd(8) }, () => patAlphabet[rnd(patAlphabet.length)]).join('');
    const value = Array.from({ length: rnd(10) }, () => alphabet[rnd(alphabet.length)]).join('');
    assert.equal(compileGlob(pattern).test(value), regexGlob(pattern, value), `${JSON.stringify(pattern)} vs ${JSON.stringify(value)}`);
  }
});
