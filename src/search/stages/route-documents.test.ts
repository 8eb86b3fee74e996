import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialismWords, labelGroups, labelInitials, labelTermPieces, queryInitialisms, routeDocuments, MAX_ROUTED_DOCS, type RouteInput } from './route-documents.ts';

// Query words: 0 "mgm", 1 "2022", 2 "dividends", 3 "earnings". Labels: MGM's filings of three years and
// two forms, another company's 2022 filing and release.
const labels: Record<string, boolean[]> = {
  mgm18: [true, false, false, false],
  mgm22: [true, true, false, false],
  mgm22rel: [true, true, false, true],
  mgm23: [true, false, false, false],
  kraft22: [false, true, false, false],
  kraft22rel: [false, true, false, true],
};
/** Per group, the documents whose label (of `of`) holds it. */
const holdersOf = (of: Record<string, boolean[]>, groups = 4) => Array.from({ length: groups }, (_, w) => new Set(Object.keys(of).filter((d) => of[d][w])));
const input = (pool: RouteInput['pool'], over: Partial<RouteInput> = {}): RouteInput => {
  const holders = over.holders ?? holdersOf(labels);
  return { names: over.names ?? holders, holders, docCount: over.docCount ?? Object.keys(labels).length, pool, weights: over.weights };
};
const chunk = (docId: string, holds: boolean[]) => ({ docId, holds });

test('routing: the naming word picks the company, the period and form narrow it', () => {
  // "mgm" occurs only in MGM's chunks (a name); "2022" and "earnings" occur everywhere (not names).
  const pool = [
    chunk('mgm22', [true, true, true, true]), chunk('mgm18', [true, true, false, true]), chunk('kraft22', [false, true, false, true]),
    chunk('kraft22rel', [false, true, false, true]), chunk('mgm23', [true, true, true, false]),
  ];
  const r = routeDocuments(input(pool));
  assert.ok(r);
  assert.equal(r.naming, 1);
  // Each narrowing that leaves some document is kept, strongest naming first: mgm → 2022 → earnings.
  assert.deepEqual(r.routed, ['mgm22rel']);
});

test('routing: a narrowing that leaves no document is skipped (a year the company has no filing of)', () => {
  const only = { mgm18: [true, false, false, false], mgm23: [true, false, false, false], kraft22: [false, true, false, false] };
  // MGM's chunks write 2022 too (a later filing looks ahead): "2022" names less strongly than "mgm".
  const pool = [chunk('mgm18', [true, true, false, false]), chunk('mgm23', [true, true, false, false]), chunk('kraft22', [false, true, false, false])];
  const r = routeDocuments(input(pool, { holders: holdersOf(only), docCount: 3 }));
  assert.deepEqual(r?.routed, ['mgm18', 'mgm23']);
});

test('routing: a topic word, a word every label holds, or too many documents route nowhere', () => {
  // "2022" is held by two labels but written as much by other documents' chunks: a topic, not a name.
  const pool = [chunk('mgm18', [true]), chunk('mgm23', [true]), chunk('kraft22', [true]), chunk('mgm22', [true]), chunk('mgm20', [true])];
  assert.equal(routeDocuments(input(pool, { holders: [new Set(['kraft22', 'mgm22'])] })), null);
  assert.equal(routeDocuments(input([chunk('a', [true])], { holders: [new Set(['a', 'b'])], docCount: 2 })), null, 'every document holds it');
  const many = new Set(Array.from({ length: MAX_ROUTED_DOCS + 1 }, (_, i) => `d${i}`));
  assert.equal(routeDocuments(input([chunk('d0', [true])], { holders: [many], docCount: 100 })), null, 'more than MAX_ROUTED_DOCS documents is a topic');
  assert.equal(routeDocuments(input([chunk('a', [true])], { holders: [new Set(['a'])], docCount: 1 })), null, 'one document: nothing to route among');
});

test('routing: a label word no candidate writes names its documents; words outside the counted query do not name', () => {
  assert.deepEqual(routeDocuments(input([chunk('x', [false])], { holders: [new Set(['a'])], docCount: 5 }))?.routed, ['a'], 'a name only the file name writes, or an initialism ("JnJ")');
  const pool = [chunk('mgm22', [true, true, false, true]), chunk('mgm18', [true, false, false, true]), chunk('kraft22', [false, true, false, true])];
  assert.equal(routeDocuments(input(pool, { weights: [0, 0, 1, 1] })), null, '"earnings" is written by documents whose label lacks it');
  assert.deepEqual(routeDocuments(input(pool, { weights: [1, 0, 1, 1] }))?.routed, ['mgm22rel'], 'with "mgm" counted');
});

test('initialisms: query tokens of capitals joined by &, . or n; label runs of alphabetic words', () => {
  assert.deepEqual(queryInitialisms("Are JnJ's FY2022 results, J&J's margin and P&G's (AMD) comparable? IBM. and I.B.M."), [
    ['jj', 'JnJ'], ['jj', 'J&J'], ['pg', 'P&G'], ['amd', 'AMD'], ['ibm', 'IBM'], ['ibm', 'I.B.M'],
  ]);
  assert.deepEqual(queryInitialisms('FY2022 Q2 revenue of Adobe'), []);
  assert.deepEqual(labelInitials('JOHNSON JOHNSON 2023 8K dated 2023 08 30'), ['jj']);
  assert.deepEqual(labelInitials('10-K (JOHNSON JOHNSON 2022 10K)'), ['jj']);
  assert.ok(labelInitials('Procter & Gamble Annual Report').includes('pg'));
  assert.ok(!labelInitials('Annual Report of Johnson & Johnson').includes('jj'), 'an initialism names from the start of a run');
  assert.deepEqual(initialismWords('Form 10-K (JOHNSON JOHNSON 2022 10K)', 'jj'), ['JOHNSON', 'JOHNSON']);
  assert.deepEqual(initialismWords('Procter & Gamble Annual Report', 'pg'), ['Procter', 'Gamble']);
  assert.equal(initialismWords('Annual Report of Johnson & Johnson', 'jj'), null, 'the words a run begins with, as labelInitials');
  assert.equal(initialismWords('Form 10-K (JOHNSON JOHNSON 2022 10K)', 'pg'), null);
});

test('label groups: a compound query word also matches its parts of two or more characters', () => {
  assert.deepEqual(labelGroups([['fy2022'], ['revenu']], [['fy', '2022'], []]), [['fy2022', 'fy', '2022'], ['revenu']]);
});

test('label term pieces: a file name\'s period compound also yields its runs and adjacent pairs', () => {
  assert.equal(labelTermPieces('johnson 2022q4 earn'), 'johnson 2022q4 earn 2022 2022q q4');
  assert.equal(labelTermPieces('mgmresorts 2023q2 10q'), 'mgmresorts 2023q2 10q 2023 2023q q2 10');
  assert.equal(labelTermPieces('annual report'), 'annual report');
});

test('routing: a piece of a compound narrows but does not name ("fy" of a file name FY15 is no company)', () => {
  // Word 0 "fy": only a piece of Adobe's labels; word 1 "ulta": Ulta's label as a whole word.
  const names = [new Set<string>(), new Set(['ulta23'])];
  const holders = [new Set(['adobe15', 'adobe16']), new Set(['ulta23'])];
  const pool = [chunk('adobe15', [true, false]), chunk('adobe16', [true, false]), chunk('ulta23', [false, true]), chunk('best19', [false, true])];
  const r = routeDocuments({ names, holders, docCount: 5, pool });
  assert.deepEqual(r?.routed, ['ulta23'], 'the name routes although "fy" is written by its holders alone');
  assert.equal(r?.naming, 0.5);
});

test('routing: a question naming several years goes to the latest year\'s document among those that tie', () => {
  // Groups: 0 "amcor", 1 "2023", 2 "2022". "FY 2023 vs FY 2022": the 2023 filings and the 2022 8-K each
  // hold one of the two years; the 2023 reports carry 2022 beside 2023.
  const docs: Record<string, boolean[]> = { amcor23: [true, true, false], amcor23q4: [true, true, false], amcor22: [true, false, true], kraft22: [false, false, true] };
  const holders = [0, 1, 2].map((w) => new Set(Object.keys(docs).filter((d) => docs[d][w])));
  const pool = [chunk('amcor23', [true, true, true]), chunk('amcor22', [true, false, true]), chunk('kraft22', [false, true, true])];
  const base = { names: [holders[0], new Set<string>(), new Set<string>()], holders, docCount: 4, pool };
  assert.deepEqual(routeDocuments(base)?.routed, ['amcor22', 'amcor23', 'amcor23q4'], 'without years: a tie');
  assert.deepEqual(routeDocuments({ ...base, years: [null, 2023, 2022] })?.routed, ['amcor23', 'amcor23q4']);
  const one = { ...base, holders: [holders[0], holders[1], new Set(['kraft22'])] };
  assert.deepEqual(routeDocuments({ ...one, years: [null, 2023, 2022] })?.routed, ['amcor23', 'amcor23q4'], 'a year only another company\'s document holds leaves the best match as it is');
});
