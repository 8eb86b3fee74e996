import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initAnalysis } from '../../analysis/analyzer.ts';
import { TITLE_MAX_CHARS, TitleTermsCache } from './title-terms.ts';

test('title terms: stemmed and unstemmed forms, memoised per language, long titles cut', async () => {
  await initAnalysis();
  const cache = new TitleTermsCache(10);
  const docs = new Map([['d1', { title: 'Running Studies of Insulin' }], ['d2', { title: '' }], ['d3', { title: `${'x '.repeat(TITLE_MAX_CHARS)}tailword` }]]);
  const en = cache.of(docs, 'en');
  const terms = en.get('d1')!.split(' ');
  assert.ok(terms.includes('run') && terms.includes('running'), `stemmed and unstemmed forms (${terms.join(' ')})`);
  assert.ok(terms.includes('insulin'));
  assert.equal(en.get('d2'), '');
  assert.ok(!en.get('d3')!.includes('tailword'), 'only the first TITLE_MAX_CHARS characters are analysed');
  assert.equal(cache.of(docs, 'en').get('d1'), en.get('d1'), 'the same answer from the cache');
  assert.ok(cache.of(docs, null).get('d1')!.split(' ').includes('running'));
  const label = cache.of(new Map([['p', { title: '10-K', filename: '3M_2018_10K.pdf' }]]), 'en').get('p')!.split(' ');
  assert.ok(label.includes('3m') && label.includes('2018'), `the file name's words join a title that lacks them (${label.join(' ')})`);
});
