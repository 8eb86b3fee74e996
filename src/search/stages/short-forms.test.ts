import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initAnalysis } from '../../analysis/analyzer.ts';
import { queryShortForms } from '../../analysis/abbreviations.ts';
import { chooseLongForms, withLongForms, type LongFormRow } from './short-forms.ts';

const row = (key: string, shortForm: string, longForm: string, docId: string): LongFormRow => ({ key, shortForm, longForm, docId });

test('a short form the documents write differently gets their long form', async () => {
  await initAnalysis();
  const rows = [row('ppne', 'PP&E', 'property, plant and equipment', 'a'), row('ppe', 'PP&E', 'property, plant and equipment', 'a')];
  const looked: string[][] = [];
  const q = await withLongForms('What is the net PPNE for 3M?', async (keys) => { looked.push(keys); return rows; });
  assert.equal(q.text, 'What is the net PPNE property plant and equipment for 3M?');
  assert.deepEqual([...q.defined], ['PPNE']);
  assert.deepEqual(looked, [['ppne']]);
  let called = false;
  assert.equal((await withLongForms('what is the net income?', async () => { called = true; return rows; })).text, 'what is the net income?');
  assert.equal(called, false, 'a query without a short form reads nothing');
});

test('a short form some document writes as the query does is left alone', async () => {
  await initAnalysis();
  const q = 'Upregulation of PD1 causes the downmodulation of TNFs.';
  const rows = [row('pd1', 'PD-1', 'programmed death-1', 'a'), row('tnf', 'TNF', 'tumor necrosis factor', 'b'), row('tnf', 'TNFs', 'tumour necrosis factors', 'c')];
  assert.deepEqual([...chooseLongForms(q, queryShortForms(q), rows)], [], 'PD-1 is indexed as PD1 is; TNFs as TNF');
  const atm = 'Deletion of ATM leads to acute tissue loss.';
  const senses = [row('atm', 'ATMs', 'adipose tissue macrophages', 'a'), row('atm', 'ATM', 'ataxia telangiectasia mutated', 'b')];
  assert.deepEqual([...chooseLongForms(atm, queryShortForms(atm), senses)], []);
  const own = 'Early patent ductus arteriosus (PDA) screening';
  assert.deepEqual([...chooseLongForms(own, queryShortForms(own), [row('pda', 'PDAs', 'pancreatic ductal adenocarcinomas', 'a')])], [], 'the query defines it');
});

test('among long forms: the searched document first, then most documents, then the shorter', async () => {
  await initAnalysis();
  const q = 'net PPNE';
  const rows = [
    row('ppe', 'PP&E', 'property, plant and equipment', 'a'), row('ppe', 'PP&E', 'Property, Plant and Equipment', 'b'),
    row('ppe', 'PP&E', 'property, plant, and equipment, net', 'c'), row('ppne', 'PP&E', 'property, plant, and equipment, net', 'c'),
  ];
  assert.equal(chooseLongForms(q, queryShortForms(q), rows).get('PPNE'), 'property, plant, and equipment, net', 'only c is keyed ppne');
  const q2 = 'net PPE';
  assert.equal(chooseLongForms(q2, queryShortForms(q2), rows).get('PPE'), 'property, plant and equipment');
  assert.equal(chooseLongForms(q2, queryShortForms(q2), rows, 'c').get('PPE'), 'property, plant, and equipment, net');
});
