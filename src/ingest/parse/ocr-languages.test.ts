// The start-up OCR check: which languages count as configured, which packages add the
// missing ones, and the one warning line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { automaticLanguages, checkOcrSetup, configuredLanguages, missingOcr, ocrSetupWarning, tesseractPackage } from './ocr-languages.ts';

test('automatic choice covers every language ocr.ts can pick', () => {
  assert.deepEqual(automaticLanguages(), ['eng', 'chi_sim', 'jpn', 'jpn_vert', 'kor']);
  assert.deepEqual(configuredLanguages(''), automaticLanguages());
  assert.deepEqual(configuredLanguages(' deu+eng+deu '), ['deu', 'eng']);
});

test('Debian package names use dashes', () => {
  assert.equal(tesseractPackage('chi_sim_vert'), 'tesseract-ocr-chi-sim-vert');
  assert.equal(tesseractPackage('eng'), 'tesseract-ocr-eng');
});

test('missing languages and tesseract itself are detected', () => {
  const wanted = ['eng', 'chi_sim', 'kor'];
  assert.deepEqual(missingOcr(wanted, new Set(['eng', 'chi_sim', 'kor', 'deu'])), { tesseract: false, langs: [], packages: [] });
  assert.deepEqual(missingOcr(wanted, new Set(['eng'])), {
    tesseract: false, langs: ['chi_sim', 'kor'], packages: ['tesseract-ocr-chi-sim', 'tesseract-ocr-kor'],
  });
  assert.deepEqual(missingOcr(wanted, null), {
    tesseract: true, langs: wanted, packages: ['tesseract-ocr', 'tesseract-ocr-eng', 'tesseract-ocr-chi-sim', 'tesseract-ocr-kor'],
  });
});

test('one warning line naming the languages and the install command; none when complete', () => {
  assert.equal(ocrSetupWarning(['eng'], new Set(['eng'])), null);
  const partial = ocrSetupWarning(['eng', 'kor'], new Set(['eng']))!;
  assert.doesNotMatch(partial, /\n/);
  assert.match(partial, /language data missing for kor \(configured: eng, kor\)/);
  assert.match(partial, /apt-get install tesseract-ocr-kor \(/);
  const none = ocrSetupWarning(['eng'], null)!;
  assert.match(none, /tesseract is not installed/);
  assert.match(none, /apt-get install tesseract-ocr tesseract-ocr-eng /);
});

test('checkOcrSetup: nothing to say when OCR is off; on this machine, consistent with tesseract --list-langs', async () => {
  assert.equal(await checkOcrSetup({ ocr: false }), null);
  // A language no Debian package provides is always reported as missing.
  const warning = await checkOcrSetup({ ocr: true, fixedLangs: 'eng+zz_nonexistent' });
  assert.match(warning!, /zz_nonexistent|tesseract is not installed/);
  assert.match(warning!, /tesseract-ocr-zz-nonexistent/);
});
