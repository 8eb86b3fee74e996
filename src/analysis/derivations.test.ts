import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derivedStems, initDerivations } from './derivations.ts';

test('derivational relatives come from WordNet verb ↔ noun links, keyed by English stems, both ways', async () => {
  assert.deepEqual(derivedStems('acquir'), [], 'nothing before initDerivations() resolves');
  await initDerivations();
  await initDerivations(); // memoised
  assert.ok(derivedStems('acquir').includes('acquisit'), 'acquire → acquisition');
  assert.ok(derivedStems('acquisit').includes('acquir'), 'and back');
  assert.ok(derivedStems('grow').includes('growth'));
  assert.ok(derivedStems('expenditur').includes('expend'));
  assert.ok(derivedStems('reduc').includes('reduct'));
});

test('agent nouns and noun ↔ noun or adjective links are left out; a stem never relates to itself', async () => {
  await initDerivations();
  assert.ok(!derivedStems('grow').includes('grower'), 'grower names the doer');
  assert.ok(!derivedStems('invest').some((s) => s.startsWith('investor')));
  assert.ok(!derivedStems('report').includes('reportag'), 'report (n) ↔ reportage is a noun ↔ noun link');
  assert.ok(!derivedStems('drop').includes('droplet'));
  assert.ok(!derivedStems('acquir').includes('acquir'));
  assert.deepEqual(derivedStems('qzxv'), []);
});
