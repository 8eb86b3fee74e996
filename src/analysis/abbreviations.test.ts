import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestLongForm, DefinitionCollector, expandShortForms, extractDefinitions, isShortForm, keyedDefinitions, MAX_DEFINITIONS, MAX_QUERY_SHORT_FORMS, queryShortForms, shortFormKeys } from './abbreviations.ts';

test('definitions "long form (SF)" are found with the long form the initials spell, once each', () => {
  const text = 'Cash Flows from Investing Activities\nPurchases of property, plant and equipment (PP&E) (1,577) (1,373)\n'
    + 'Note 9. Property, Plant and Equipment (PP&E)\nSelling, general and administrative expenses (SG&A) rose; tumor necrosis factor (TNF) levels.';
  assert.deepEqual(extractDefinitions(text).map((d) => `${d.short}=${d.long}`), [
    'PP&E=property, plant and equipment',
    'SG&A=Selling, general and administrative expenses',
    'TNF=tumor necrosis factor',
  ]);
});

test('parentheses that are not short forms define nothing', () => {
  assert.deepEqual(extractDefinitions('Net income (Millions) (Loss) (2018) (in USD) (a) and the results (see Note 4).'), []);
  assert.equal(isShortForm('Millions'), false);
  assert.equal(isShortForm('USD'), true);
  assert.equal(isShortForm('RSUs'), true);
  // "USD" after words whose initials do not spell it has no long form.
  assert.deepEqual(extractDefinitions('Revenue in dollars (USD) grew.'), []);
});

test('the letter walk of Schwartz & Hearst applies when the initials do not spell the short form', () => {
  assert.equal(bestLongForm('PD-L1', 'blocking the anti-programmed death ligand-1'), 'anti-programmed death ligand-1');
  assert.equal(bestLongForm('XYZ', 'nothing here'), null);
});

test('keys: letters and digits, "&" dropped and as "n", a plural "s" dropped', () => {
  assert.deepEqual(shortFormKeys('PP&E'), ['ppe', 'ppne']);
  assert.deepEqual(shortFormKeys('PPNE'), ['ppne']);
  assert.deepEqual(shortFormKeys('RSUs'), ['rsu']);
  assert.deepEqual(shortFormKeys('PD-1'), ['pd1']);
  const keyed = keyedDefinitions([{ short: 'PP&E', long: 'property, plant and equipment' }, { short: 'PP&E', long: 'Property, Plant and Equipment' }]);
  assert.deepEqual(keyed.map((k) => k.key), ['ppe', 'ppne'], 'one entry per key and long form, case aside');
  const many = Array.from({ length: MAX_DEFINITIONS + 50 }, (_, i) => ({ short: `AB${i}`, long: `alpha beta ${i}` }));
  assert.equal(keyedDefinitions(many).length, MAX_DEFINITIONS);
});

test('query short forms and their expansion keep the rest of the query as it is', () => {
  const q = "Did Pfizer grow its PPNE's between FY20 and FY21? Use the (SG&A) line.";
  assert.deepEqual(queryShortForms(q).map((w) => w.word), ['PPNE', 'FY20', 'FY21', 'SG&A']);
  assert.equal(
    expandShortForms(q, new Map([['PPNE', 'property, plant and equipment']])),
    "Did Pfizer grow its PPNE property plant and equipment's between FY20 and FY21? Use the (SG&A) line.",
  );
  assert.equal(expandShortForms(q, new Map()), q);
  const pasted = Array.from({ length: 100 }, (_, i) => `AB${i}`).join(' ');
  assert.equal(queryShortForms(pasted).length, MAX_QUERY_SHORT_FORMS);
});

test('a document\'s collector reads a repeated heading once, and duplicates do not use up its cap', () => {
  const c = new DefinitionCollector();
  const heading = ['Note 9. Property, plant and equipment (PP&E)'];
  for (let i = 0; i < MAX_DEFINITIONS + 10; i++) c.add({ heading_path: heading, content: 'Tumor necrosis factor (TNF) rose.' });
  c.add({ heading_path: [], content: 'Selling, general and administrative expenses (SG&A) fell.' });
  assert.deepEqual(c.keyed().map((k) => `${k.key}=${k.long}`), [
    'ppe=Property, plant and equipment', 'ppne=Property, plant and equipment', 'tnf=Tumor necrosis factor',
    'sga=Selling, general and administrative expenses', 'sgna=Selling, general and administrative expenses',
  ]);
});
