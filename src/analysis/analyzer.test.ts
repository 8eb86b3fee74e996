// Tests for the shared lexical analyser and language detection, on hand-written samples and on the
// XQuAD queries (12 languages) from ../shared/data.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, analyzeWords, detectLanguage, initAnalysis } from './analyzer.ts';
import { splitPieces } from './segment.ts';
import { MAX_STEM_LENGTH, stemmerFor } from './stemmers.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const beir = path.resolve(repoRoot, '../shared/data/beir');

function queries(lang: string): string[] {
  const file = path.join(beir, `xquad-${lang}`, 'queries.jsonl');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text);
}

before(async () => {
  await initAnalysis();
});

test('English stemming conflates inflections and keeps numbers', () => {
  const [a, b, c] = [analyze('running', 'en'), analyze('runs', 'en'), analyze('Run', 'en')];
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  assert.deepEqual(analyze('Studies of 3.14 and COVID-19 in 2024', 'en'), ['studi', 'of', '3.14', 'and', 'covid', '19', 'in', '2024']);
  // Without a language no stemming happens, only lowercasing and folding.
  assert.deepEqual(analyze('Running Cafés', null), ['running', 'cafes']);
});

test('duplicates are kept in text order (BM25 term frequency)', () => {
  assert.deepEqual(analyze('the cat and the hat', 'en'), ['the', 'cat', 'and', 'the', 'hat']);
});

test('German and French: stemmed with accents, then folded', () => {
  assert.deepEqual(analyze('Die Häuser', 'de'), analyze('die Haus', 'de'));
  assert.deepEqual(analyze('Straße', 'de'), analyze('strasse', 'de'));
  assert.deepEqual(analyze('Éléphants', 'fr'), analyze('éléphant', 'fr'));
  // Folding makes unaccented queries match accented text.
  assert.deepEqual(analyze('élève naïve', null), ['eleve', 'naive']);
  assert.deepEqual(analyze('Ärger Œuvre Łódź', null), ['arger', 'oeuvre', 'lodz']);
});

test('typographic apostrophe behaves like the ASCII one', () => {
  assert.deepEqual(analyze('John\u2019s', 'en'), analyze("John's", 'en'));
});

test('Chinese and Japanese runs become character bigrams; a lone character stays a unigram', () => {
  assert.deepEqual(analyze('北京天安门', 'zh'), ['北京', '京天', '天安', '安门']);
  assert.deepEqual(analyze('我，爱', 'zh'), ['我', '爱']);
  assert.deepEqual(analyze('Sky Digital是什么', 'zh'), ['sky', 'digital', '是什', '什么']);
  assert.deepEqual(analyze('日本語です', 'ja'), ['日本', '本語', '語で', 'です']);
});

test('Korean words become character bigrams', () => {
  assert.deepEqual(analyze('한국어 텍스트를 수', 'ko'), ['한국', '국어', '텍스', '스트', '트를', '수']);
});

test('Thai is segmented into words by Intl.Segmenter', () => {
  assert.deepEqual(analyze('ภาษาไทยเป็นภาษาที่ยาก', 'th'), ['ภาษา', 'ไทย', 'เป็น', 'ภาษา', 'ที่', 'ยาก']);
});

test('Hindi keeps its vowel signs and nukta (no folding of Devanagari marks)', () => {
  const text = 'पैंथर्स डिफ़ेंस ने कितने अंक दिए?';
  assert.deepEqual(analyze(text, null), ['पैंथर्स', 'डिफ़ेंस', 'ने', 'कितने', 'अंक', 'दिए']);
  const terms = analyze(text, 'hi');
  assert.deepEqual(terms, ['पैंथर्स', 'डिफ़ेंस', 'न', 'कित', 'अंक', 'द'], 'the Snowball Hindi stemmer strips inflectional vowel endings');
  assert.ok(terms[0].includes('\u0948')); // ै vowel sign survived
  assert.ok(terms[1].includes('\u093c')); // nukta survived
});

test('Arabic is stemmed, not mangled into marks-stripped fragments', () => {
  const terms = analyze('كم نقطة تخلى عنها دفاع البانثرز؟', 'ar');
  assert.equal(terms.length, 6);
  for (const t of terms) assert.match(t, /^\p{sc=Arabic}+$/u);
  // Unstemmed analysis keeps the words as written.
  assert.deepEqual(analyze('دفاع البانثرز', null), ['دفاع', 'البانثرز']);
});

test('Greek and Cyrillic are folded (tonos, final sigma, ё)', () => {
  assert.deepEqual(analyze('άμυνα Πάνθερς', null), ['αμυνα', 'πανθερσ']);
  assert.deepEqual(analyze('ёлка', null), ['елка']);
});

test('long text is analysed in pieces with the same terms as short text', () => {
  const sentence = 'Alterations of the architecture of cerebral white matter in the developing human brain. ';
  const long = sentence.repeat(200);
  const pieces = splitPieces(long);
  assert.ok(pieces.length > 1);
  assert.equal(pieces.join(''), long);
  for (const p of pieces) assert.ok(p.length <= 2000);
  const one = analyze(sentence, 'en');
  assert.deepEqual(analyze(long, 'en'), Array.from({ length: 200 }, () => one).flat());
  const cjk = '北京天安门'.repeat(1000);
  assert.ok(splitPieces(cjk).every((p) => p.length <= 2000));
});

test('terms never contain whitespace; empty input gives no terms', () => {
  assert.deepEqual(analyze('', 'en'), []);
  assert.deepEqual(analyze('  ... !!! ', 'en'), []);
  for (const t of analyze('a\u00a0b\u3000c\td\ne', null)) assert.doesNotMatch(t, /\s/u);
});

test('detectLanguage on XQuAD queries of 12 languages', () => {
  for (const lang of ['ar', 'de', 'el', 'en', 'es', 'hi', 'ro', 'ru', 'th', 'tr', 'vi', 'zh']) {
    const qs = queries(lang);
    const hits = qs.filter((q) => detectLanguage(q).code === lang).length;
    const acc = hits / qs.length;
    assert.ok(acc >= 0.95, `${lang}: accuracy ${acc.toFixed(3)}`);
  }
  const de = detectLanguage('Wie viele Punkte gab die Verteidigung der Panthers ab?');
  assert.deepEqual(de, { code: 'de', bcp47: 'de', reliable: true });
});

test('short or letterless text gives und', () => {
  for (const t of ['', 'ok', 'hello world', 'The cat', '123 456 789 000', '!!! ???']) {
    assert.deepEqual(detectLanguage(t), { code: null, bcp47: 'und', reliable: false }, t);
  }
});

test('letter/digit compounds also yield their parts when every part has two characters or more', () => {
  assert.deepEqual(analyze('FY2018 COVID19', null), ['fy2018', 'fy', '2018', 'covid19', 'covid', '19']);
  assert.deepEqual(analyze('Q2 B2B', null), ['q2', 'b2b']);
});

test('analyzeWords groups each written word\'s terms (a compound with its parts) and flattens to analyze()', () => {
  assert.deepEqual(analyzeWords('FY2018 capital expenditures, Q2', 'en'), [['fy2018', 'fy', '2018'], ['capit'], ['expenditur'], ['q2']]);
  assert.deepEqual(analyzeWords('中文 abc', null), [['中文'], ['abc']]);
  for (const text of ['FY2018 COVID19 Rad53-dependent 日本語のテキスト 한국어', 'Die Straße ist schön 2023']) {
    for (const lang of ['en', 'de', null]) assert.deepEqual(analyzeWords(text, lang).flat(), analyze(text, lang));
  }
});

test('Greek and Hindi are stemmed (Snowball algorithms from @orama/stemmers): inflections share a term', () => {
  const el = analyze('δάσους δάσος δάση', 'el');
  assert.equal(new Set(el).size, 1, el.join(' '));
  assert.doesNotMatch(el[0], /[άέήίόύώ]/u, 'stemmed before accent folding, folded after');
  const hi = analyze('लड़कों लड़का लड़के', 'hi');
  assert.equal(new Set(hi).size, 1, hi.join(' '));
  assert.deepEqual(analyze('δάσους', null), ['δασουσ'], 'without a language: folding only');
});

test('Ukrainian, Indonesian/Malay, Lithuanian, Nepali and Serbian/Croatian are stemmed: inflections share a term', () => {
  const cases: Array<[string, string]> = [
    ['uk', 'міста місто містах'],
    ['id', 'perjalanan berjalan jalan'],
    ['ms', 'perjalanan berjalan jalan'],
    ['lt', 'knygos knyga knygomis'],
    ['ne', 'किताबहरू किताब किताबको'],
    ['sr', 'knjige knjiga knjigama'],
    ['hr', 'knjige knjiga knjigama'],
  ];
  for (const [lang, text] of cases) {
    const terms = analyze(text, lang);
    assert.equal(new Set(terms).size, 1, `${lang}: ${terms.join(' ')}`);
  }
  // The Serbian algorithm reads both scripts: Cyrillic and Latin spellings meet.
  assert.deepEqual(analyze('градова', 'sr'), analyze('gradova', 'sr'));
});

test('Bulgarian is stemmed (Lucene\'s light stemmer, given a character array): articles and plurals meet', () => {
  for (const text of ['градове градовете града град', 'учениците ученици ученик', 'книги книга книгата']) {
    const terms = analyze(text, 'bg');
    assert.equal(new Set(terms).size, 1, terms.join(' '));
  }
  // Words whose ending the stemmer rewrites threw inside the third-party code on a string.
  assert.notEqual(stemmerFor('bg')!('потери'), 'потери');
});

test('a word longer than MAX_STEM_LENGTH is not stemmed (bounds stemmers that are not linear in the word)', () => {
  const long = 'міст'.repeat(MAX_STEM_LENGTH) + 'ах';
  assert.deepEqual(analyze(long, 'uk'), [long]);
  assert.deepEqual(stemmerFor('uk')!(long), long);
  assert.notEqual(stemmerFor('uk')!('містах'), 'містах');
});

test('a word a stemmer strips entirely is kept as it is, not dropped', () => {
  // Snowball Czech maps the ending-only word "ých" to ''.
  assert.deepEqual(analyze('ých', 'cs'), ['ych']);
});

test('a compound kept whole across an apostrophe or underscore also yields its pieces', () => {
  assert.deepEqual(analyze("Q4'22", 'en'), ["q4'22", 'q4', '22']);
  assert.deepEqual(analyze('pfizer_2023q2_10q', null), ['pfizer_2023q2_10q', 'pfizer', '2023q2', '10q']);
  assert.deepEqual(analyze('top_k_10', null), ['top_k_10', 'top', '10'], 'one-letter pieces are noise');
  assert.deepEqual(analyze("don't max_tokens O'Neil", 'en'), ["don't", 'max_token', "o'neil"], 'words without a digit are untouched');
});
