import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initEnglishForms, relatedStems } from './english-forms.ts';

test('derivational relatives come from WordNet verb ↔ noun links, keyed by English stems, both ways', async () => {
  assert.deepEqual(relatedStems('acquir'), [], 'nothing before initEnglishForms() resolves');
  await initEnglishForms();
  await initEnglishForms(); // memoised
  assert.ok(relatedStems('acquir').includes('acquisit'), 'acquire → acquisition');
  assert.ok(relatedStems('acquisit').includes('acquir'), 'and back');
  assert.ok(relatedStems('grow').includes('growth'));
  assert.ok(relatedStems('expenditur').includes('expend'));
  assert.ok(relatedStems('reduc').includes('reduct'));
});

test('agent nouns and noun ↔ noun or adjective links are left out; a stem never relates to itself', async () => {
  await initEnglishForms();
  assert.ok(!relatedStems('grow').includes('grower'), 'grower names the doer');
  assert.ok(!relatedStems('invest').some((s) => s.startsWith('investor')));
  assert.ok(!relatedStems('report').includes('reportag'), 'report (n) ↔ reportage is a noun ↔ noun link');
  assert.ok(!relatedStems('drop').includes('droplet'));
  assert.ok(!relatedStems('acquir').includes('acquir'));
  assert.deepEqual(relatedStems('qzxv'), []);
});

test('British and American spellings are forms of each other, with their derivations', async () => {
  await initEnglishForms();
  assert.ok(relatedStems('tumour').includes('tumor'), 'tumour → tumor');
  assert.ok(relatedStems('tumor').includes('tumour'), 'and back');
  assert.ok(relatedStems('randomis').includes('random'), 'randomised → randomized (Snowball: random)');
  assert.ok(relatedStems('leukaemia').includes('leukemia'));
  assert.ok(relatedStems('organis').includes('organiz'));
  assert.deepEqual(relatedStems('color').filter((s) => s === 'color'), [], 'never itself');
});
