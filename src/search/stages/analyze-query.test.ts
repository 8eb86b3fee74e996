import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { initAnalysis } from '../../analysis/analyzer.ts';
import { phraseSkipTerms } from '../../analysis/stopwords.ts';
import { analyseQuery, denseQueryText, FOCUS_OUTSIDE_WEIGHT, isQuestion, questionFocus, termBoosts } from './analyze-query.ts';
import { closedWordForms, MAX_CLOSED_PAIRS } from './query-phrases.ts';

before(() => initAnalysis());

test('a detectable English query is stemmed in English, with unstemmed forms appended', () => {
  const q = analyseQuery('trace-based compilation of dynamic languages for the web browser', null);
  assert.equal(q.detectedLang, 'en');
  assert.equal(q.stemLang, 'en');
  assert.ok(q.terms.includes('languag') && q.terms.includes('languages'));
  assert.ok(q.terms.includes('compil') && q.terms.includes('compilation'));
  assert.equal(new Set(q.terms).size, q.terms.length);
  assert.ok(q.termCount < q.terms.length);
});

test('an undetectable short query reports null and stems with the fallback language', () => {
  const q = analyseQuery('ducks', 'en');
  assert.equal(q.detectedLang, null);
  assert.equal(q.stemLang, 'en');
  assert.deepEqual(q.terms, ['duck', 'ducks']);
  assert.equal(q.termCount, 1);
  const none = analyseQuery('ducks', null);
  assert.deepEqual([none.stemLang, none.terms, none.termCount], [null, ['ducks'], 1]);
});

test('a query with no word characters has no terms', () => {
  assert.deepEqual(analyseQuery('?!', 'en').terms, []);
});

test('stopwords of the query language and of English are not query terms, unless nothing else remains', () => {
  const q = analyseQuery('What is the capital expenditure of the company in 2018?', 'en');
  assert.ok(!q.terms.includes('what') && !q.terms.includes('the') && !q.terms.includes('is'));
  assert.ok(q.terms.includes('capit') || q.terms.includes('capital'));
  assert.ok(q.terms.includes('2018'));
  assert.equal(q.termCount, q.groups.length);
  assert.deepEqual(analyseQuery('what is the', 'en').terms.length > 0, true);
});

test('each query word is one group of its stemmed and unstemmed forms', () => {
  const q = analyseQuery('ducks swimming', 'en');
  // … and the closed form of the two adjacent words is a form of both (closedWordForms).
  assert.deepEqual(q.groups, [['duck', 'ducks', 'ducksswim', 'ducksswimming'], ['swim', 'swimming', 'ducksswim', 'ducksswimming']]);
});

test('two adjacent words also match their closed form: "Best Buy" holds a title or file name "BESTBUY"', () => {
  const q = analyseQuery('Which Best Buy product category grew in the domestic market?', 'en');
  const group = (t: string) => q.groups[q.groups.findIndex((g) => g[0] === t)];
  assert.ok(group('best').includes('bestbuy') && group('buy').includes('bestbuy'));
  assert.ok(q.terms.includes('bestbuy'), 'a BM25 term too');
  assert.ok(!q.groups.flat().includes('grewdomest') && !q.groups.flat().includes('grewdomestic'), 'words parted by a stopword do not join');
  assert.deepEqual(closedWordForms('FY', '2023', 'en'), [], 'digits: a letter/digit compound is handled as one word already');
  assert.deepEqual(closedWordForms('a', 'priori', 'en'), [], 'one-letter words do not join');
  assert.deepEqual(closedWordForms('北京', '大学', 'zh'), [], 'text the analyser cuts itself (CJK bigrams) has no closed form');
  assert.deepEqual(closedWordForms('ภาษา', 'ไทย', 'th'), [], 'nor text a segmenter cuts again (Thai)');
  assert.equal(closedWordForms('भारतीय', 'रिज़र्व', 'hi').length, 1, 'combining marks (Devanagari vowel signs) are letters of a word');
  assert.ok(!analyseQuery('哪个国家的总统访问了北京大学？', 'zh').groups.some((g) => g.length > 2), 'a Chinese word keeps its own forms only');
  assert.deepEqual(closedWordForms('Kaffee', 'Maschine', 'de').includes('kaffeemaschin'), true, 'analysed as a document word is (German stem)');
  const pairs = analyseQuery('Best Buy revenue', 'en');
  assert.ok(pairs.pairTerms.flat().every(([a, b]) => !a.includes('bestbuy') && !b.includes('bestbuy')), 'phrase pairs read the words, not their closed forms');
});

test('question focus: words only outside the question of a longer query weigh less', () => {
  const q = analyseQuery('Assume you are an analyst preparing a briefing. What was the revenue of the U.S. segment? Use the cash flow statement.', 'en');
  const w = (t: string) => q.weights[q.groups.findIndex((g) => g.includes(t))];
  assert.equal(w('revenu'), 1);
  assert.equal(w('segment'), 1);
  assert.equal(w('analyst'), FOCUS_OUTSIDE_WEIGHT);
  assert.equal(w('cash'), FOCUS_OUTSIDE_WEIGHT);
  assert.ok(!q.terms.includes('answer'));
  assert.equal(questionFocus('What was the revenue?'), null, 'a lone question needs no focus');
  assert.equal(questionFocus('Revenue in 2023. Costs in 2022.'), null, 'no question, no focus');
  assert.deepEqual(analyseQuery('revenue growth', 'en').weights, [1, 1]);
});

test('coverage segments split sentences and clauses, but not numbers or the question focus', () => {
  const q = analyseQuery('Using only the information available in the documents, what was the 2018 capital expenditure of 1,577?', 'en');
  const seg = (t: string) => q.segments.findIndex((s) => s.includes(q.groups.findIndex((g) => g.includes(t))));
  assert.equal(q.segments.length, 2, 'the comma after a word ends a clause; the one inside "1,577" does not');
  assert.notEqual(seg('document'), seg('capit'), 'the instruction clause is its own segment');
  assert.equal(seg('1,577'), seg('capit'));
  assert.equal(questionFocus('For Pfizer, which region had the biggest drop?'), null, 'the question focus still sees one question');
  assert.equal(analyseQuery('revenue growth', 'en').segments.length, 1);
});

test('sentences: the query\'s sentences (not clauses) with their question flag, for the sentence drop', () => {
  const q = analyseQuery('Assume you are an analyst preparing a briefing. What was the 2018 capital expenditure, in millions? Cite the source.', 'en');
  assert.deepEqual(q.sentences.map((s) => s.question), [false, true, false]);
  const sentenceOf = (t: string) => q.sentences.findIndex((s) => s.groups.includes(q.groups.findIndex((g) => g.includes(t))));
  assert.equal(sentenceOf('capit'), sentenceOf('million'), 'a clause boundary does not split a sentence');
  assert.equal(sentenceOf('analyst'), 0);
  assert.equal(analyseQuery('revenue growth', 'en').sentences.length, 1);
});

test('phrase pairs join adjacent content words of one sentence, never across sentences', () => {
  const q = analyseQuery('What is the capital expenditure in the cash flow statement? Assume you are an analyst.', 'en');
  const word = (t: string) => q.groups.findIndex((g) => g.includes(t));
  const has = (a: string, b: string) => q.pairs.some(([x, y]) => x === word(a) && y === word(b));
  assert.ok(has('capit', 'expenditur'), 'adjacent content words');
  assert.ok(has('expenditur', 'cash'), '"in the" are skipped, as a document\'s stored pairs skip them');
  assert.ok(has('cash', 'flow') && has('flow', 'statement'));
  assert.ok(!has('statement', 'assum'), 'no pair across the sentence boundary');
  assert.equal(new Set(q.pairs.map((p) => p.join())).size, q.pairs.length, 'distinct');
  assert.deepEqual(analyseQuery('insulin', 'en').pairs, []);
});

test('query-only stopwords (Orama\'s lists) leave the query and end its phrases; stored pairs skip only stopword\'s list', () => {
  const q = analyseQuery('¿En qué año fue fundada la ciudad de Lima?', 'es');
  assert.equal(q.stemLang, 'es');
  const word = (t: string) => q.groups.findIndex((g) => g.includes(t));
  assert.equal(word('fue'), -1, '"fue" (was) is not a content word');
  assert.ok(!q.terms.includes('fue'), 'nor a BM25 term');
  assert.ok(!phraseSkipTerms('es').has('fue'), 'a document stores the pairs on both sides of "fue"');
  const has = (a: string, b: string) => q.pairs.some(([x, y]) => x === word(a) && y === word(b));
  assert.ok(word('ano') >= 0 && word('fund') >= 0 && !has('ano', 'fund'), 'so no query pair crosses it');
  assert.ok(has('fund', 'ciud'), '"la" is skipped inside a phrase');
  assert.ok(has('ciud', 'lim'), '"de" (a stopword of both lists) is skipped, as stored pairs skip it');
});

test('the query vector is made of the question when instructions wrap it', () => {
  const q = 'What industry does AMCOR primarily operate in?';
  assert.equal(denseQueryText(`Assume you are an analyst preparing a briefing. ${q} Answer using the details in the provided documents.`), q);
  assert.equal(denseQueryText(q), q, 'a lone question is the whole query');
  const claim = 'Insulin resistance raises the risk of type 2 diabetes. Summarise the evidence.';
  assert.equal(denseQueryText(claim), claim, 'without a question the whole query is embedded');
});

test('a letter/digit compound is one query word: its parts are BM25 terms, not groups of their own', () => {
  const q = analyseQuery('major acquisitions in FY2023 and FY2022', 'en');
  const words = q.groups.map((g) => g[0]);
  assert.ok(words.includes('fy2023') && words.includes('fy2022'));
  assert.ok(!words.includes('fy') && !words.includes('2023') && !words.includes('2022'), JSON.stringify(q.groups));
  for (const t of ['fy2023', 'fy', '2023', '2022']) assert.ok(q.terms.includes(t), t);
  assert.equal(q.termCount, 4); // major, acquisit, fy2023, fy2022
  // Its phrase pairs join the written words (acquisit, fy2023); each compound is also the phrase of its
  // parts, the pair [a, a] held as (fy, 2023).
  const pairs = q.pairs.map(([a, b]) => `${q.groups[a][0]} ${q.groups[b][0]}`);
  assert.deepEqual(pairs, ['major acquisit', 'acquisit fy2023', 'fy2023 fy2022', 'fy2023 fy2023', 'fy2022 fy2022']);
  assert.deepEqual(q.pairTerms[3], [['fy', '2023']]);
  // A compound whose part is a stopword ("in") is still a content word; stored pairs skip that part, so
  // its own phrase has one content part (no pair) and it ends in "2020".
  const s = analyseQuery('revenue in2020 growth', 'en');
  const w = s.groups.findIndex((g) => g[0] === 'in2020');
  assert.ok(w >= 0);
  assert.ok(!s.pairs.some(([a, b]) => a === w && b === w));
  const k = s.pairs.findIndex(([a]) => a === w);
  assert.deepEqual(s.pairTerms[k][0], ['2020', 'growth']);
});

test('a compound outside the question focus lends its weight to its parts in BM25, unless a part is a word itself', () => {
  const q = analyseQuery('What was the revenue growth? Use the FY2023 report and the 2022 numbers.', 'en');
  const boosts = termBoosts(q);
  assert.equal(boosts.get('fy2023'), FOCUS_OUTSIDE_WEIGHT);
  assert.equal(boosts.get('fy'), FOCUS_OUTSIDE_WEIGHT);
  assert.equal(boosts.get('2023'), FOCUS_OUTSIDE_WEIGHT);
  assert.equal(boosts.get('revenu'), undefined); // in the question: weight 1, no boost
  // "2022" is a word of its own (outside the focus too): its own weight, once.
  assert.equal(boosts.get('2022'), FOCUS_OUTSIDE_WEIGHT);
  const inFocus = termBoosts(analyseQuery('What was FY2023 revenue? Use the 2023 report.', 'en'));
  assert.equal(inFocus.get('fy2023'), undefined);
  // The word "2023" after the question is its own group; the question holds it (as FY2023's part), so it weighs 1.
  assert.equal(inFocus.get('2023'), undefined);
});

test('closed forms are bounded: a pasted passage adds at most MAX_CLOSED_PAIRS pairs of them', () => {
  const words = Array.from({ length: 400 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
  const q = analyseQuery(words.join(' '), 'en');
  // A closed form is the one kind of term that two different words' groups share.
  const closed = q.terms.filter((t) => q.groups.filter((g) => g.includes(t)).length >= 2);
  assert.ok(closed.length > 0 && closed.length <= 2 * MAX_CLOSED_PAIRS, `${closed.length} closed-form terms`);
});

test('instruction sentences: a sentence that is not a question and holds an instruction marker word', () => {
  const q = analyseQuery('You are a helpful assistant. Using only the information available in the provided documents, answer the following question as precisely as possible: Mitochondria are uninvolved in apoptosis.', 'en');
  assert.deepEqual(q.sentences.map((s) => s.instruction), [true, false], '"You are a helpful assistant." has no content words and is no sentence here');
  const asked = analyseQuery('Answer briefly. What drove the increase in inventories? Answer in one paragraph.', 'en');
  assert.deepEqual(asked.sentences.map((s) => [s.question, s.instruction]), [[false, true], [true, false], [false, true]], 'a question is never an instruction');
  assert.deepEqual(analyseQuery('Please list the revenue of 3M in 2018. Use the annual report.', 'en').sentences.map((s) => s.instruction), [false, false], '"please" alone does not make an instruction');
  assert.deepEqual(analyseQuery('The immune response to the vaccine wanes after six months.', 'en').sentences.map((s) => s.instruction), [false]);
});

test('Greek questions end in ";" (the Greek question mark): a wrapped Greek question is embedded alone', () => {
  const q = 'Ποια χρονιά πέθανε ο Τέσλα;';
  assert.ok(isQuestion(q) && isQuestion('Ποια χρονιά πέθανε ο Τέσλα\u037e') && isQuestion('What year?') && isQuestion('متى؟'));
  assert.ok(!isQuestion('Revenue rose; costs fell;'), 'a ";" ends a question only in Greek text');
  assert.equal(denseQueryText(`Assume you are an analyst preparing a briefing. ${q} Answer using the details in the provided documents.`), q);
  assert.equal(denseQueryText(`You are a helpful assistant. Using only the information available in the provided documents, answer the following question as precisely as possible: ${q}`), q);
});

// Last in this file: it loads the English forms (analysis/english-forms.ts), which later analyses would see.
test('an English word also matches its derivational relatives, but two query words never merge', async () => {
  const { initEnglishForms } = await import('../../analysis/english-forms.ts');
  assert.deepEqual(analyseQuery('Which companies were acquired?', 'en').groups[1], ['acquir', 'acquired']);
  await initEnglishForms();
  const q = analyseQuery('Which companies were acquired?', 'en');
  assert.deepEqual(q.groups[1], ['acquir', 'acquired', 'acquisit']);
  assert.ok(q.terms.includes('acquisit'));
  // Both words asked: each keeps its own group, so a passage holding one of them covers one word, not two.
  const both = analyseQuery('acquired acquisitions', 'en');
  assert.ok(!both.groups[0].includes('acquisit') && !both.groups[1].includes('acquir'));
  // Another language's stems are not English stems: no relatives.
  const es = analyseQuery('¿Qué empresas fueron adquiridas por la compañía en el año fiscal?', 'es');
  assert.equal(es.stemLang, 'es');
  assert.ok(es.groups.every((g) => !g.includes('acquisit')));
});
