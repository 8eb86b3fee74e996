// Document routing against the real HTTP server on real filings (../shared/data/qa): a namespace holding
// several filings of each company, where a question that names the company and the period must be
// answered from that filing, not from its siblings, and an initialism the filings never write ("JnJ")
// names Johnson & Johnson's filings by their label (search/stages/route-documents.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, dataPath, ingestDocsDone } from './helpers/api.ts';

const FILES = [
  'financebench-dev/pdfs/JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf',
  'financebench/pdfs/JOHNSON_JOHNSON_2023_8K_dated-2023-08-30.pdf',
  'financebench-dev/pdfs/AMCOR_2022_8K_dated-2022-07-01.pdf',
  'financebench/pdfs/AMCOR_2023Q4_EARNINGS.pdf',
  'financebench-dev/pdfs/FOOTLOCKER_2022_8K_dated-2022-05-20.pdf',
  'financebench/pdfs/ULTABEAUTY_2023Q4_EARNINGS.pdf',
];

interface Hit { doc_id: string; score: number; pages: number[] }

describe('document routing: the filing a question names, among its siblings', () => {
  let fx: ProjectFixture;
  let docs: Record<string, string>;
  const docOf = (name: string) => Object.entries(docs).find(([f]) => path.basename(f).startsWith(name))![1];
  const nameOf = (id: string) => path.basename(Object.entries(docs).find(([, d]) => d === id)?.[0] ?? id);
  const search = async (query: string, extra: Record<string, unknown> = {}) => {
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/search', { query, format: 'json', ...extra });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as { results: Hit[] }).results;
  };

  // Two companies whose file names begin with the same word, written as one word ("American Express" →
  // AMERICANEXPRESS): real filings under other companies' file names, so only the label tells them apart.
  let tmp: string;
  const RELABELLED: Record<string, string> = {
    'AMERICANEXPRESS_2022_10K.pdf': 'financebench-dev/pdfs/AMCOR_2023Q2_10Q.pdf',
    'AMERICANWATERWORKS_2022_8K.pdf': 'financebench-dev/pdfs/FOOTLOCKER_2022_8K_dated_2022-08-19.pdf',
  };

  before(async () => {
    fx = await startProjectFixture('document-routing-');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'routing-labels-'));
    for (const [name, from] of Object.entries(RELABELLED)) fs.copyFileSync(path.join(dataPath('qa'), from), path.join(tmp, name));
    docs = await ingestDocsDone(fx.server.baseUrl, fx.key, [
      ...FILES.map((f) => path.join(dataPath('qa'), f)),
      ...Object.keys(RELABELLED).map((f) => path.join(tmp, f)),
    ]);
  });
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    return fx?.close();
  });

  test('a name the file name writes as one word is named by the question\'s words together', async () => {
    // "American" begins both file names; "American Express" joined is one of them (stages/name-runs.ts).
    for (const [q, name] of [["What were American Express's net sales in 2022?", 'AMERICANEXPRESS'], ['Did American Water Works report a shareholder vote in 2022?', 'AMERICANWATERWORKS']]) {
      const hits = await search(q);
      assert.ok(hits.length > 0, q);
      assert.deepEqual([...new Set(hits.map((h) => nameOf(h.doc_id).split('_')[0]))], [name], `${q}: ${JSON.stringify(hits.map((h) => [nameOf(h.doc_id), h.score]))}`);
    }
  });

  test('an initialism and a period: "JnJ … Q4 2022" is answered from the Q4 2022 release, not the 2023 8-K', async () => {
    const hits = await search("What was JnJ's worldwide sales growth in Q4 2022?");
    assert.ok(hits.length > 0, 'a non-empty answer');
    assert.equal(hits[0].doc_id, docOf('JOHNSON_JOHNSON_2022Q4'), JSON.stringify(hits.map((h) => [nameOf(h.doc_id), h.score])));
    const sibling = hits.findIndex((h) => h.doc_id === docOf('JOHNSON_JOHNSON_2023_8K'));
    const routed = hits.filter((h) => h.doc_id === docOf('JOHNSON_JOHNSON_2022Q4'));
    if (sibling >= 0) assert.ok(hits[sibling].score < Math.min(...routed.map((h) => h.score)), JSON.stringify(hits.map((h) => [nameOf(h.doc_id), h.score, h.pages])));
  });

  test('documents the question does not name rank below every passing region of the filings it names', async () => {
    // Another company's release writes the question's topic ("adjusted EBIT", "comparable constant currency",
    // "operational sales growth") where the named company's filings write it otherwise or not at all; those
    // regions outranked passing regions of the named filings.
    const cases: Array<[string, string]> = [
      ["What was Ulta Beauty's adjusted EBIT and comparable constant currency net sales growth?", 'ULTABEAUTY'],
      ["What was Amcor's operational sales growth excluding translational currency?", 'AMCOR'],
    ];
    for (const [q, company] of cases) {
      const named = new Set(Object.entries(docs).filter(([f]) => path.basename(f).startsWith(company)).map(([, d]) => d));
      const hits = await search(q, { min_relevance: 0 });
      const shown = JSON.stringify(hits.map((h) => [nameOf(h.doc_id), h.score]));
      const passing = hits.filter((h) => named.has(h.doc_id) && h.score >= 0.3);
      assert.ok(passing.length > 0, `${q}: ${shown}`);
      const floor = Math.min(...passing.map((h) => h.score));
      assert.deepEqual(hits.filter((h) => !named.has(h.doc_id) && h.score >= floor).map((h) => nameOf(h.doc_id)), [], `${q}: ${shown}`);
    }
  });

  test('the namespace search finds first what searchInDoc on the routed filing finds first', async () => {
    const q = "What was JnJ's worldwide sales growth in Q4 2022?";
    const [first] = await search(q);
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/searchInDoc', { query: q, format: 'json', doc_filter: docOf('JOHNSON_JOHNSON_2022Q4') });
    const inDoc = (r.body as { results: Hit[] }).results;
    // A short filing is ranked from the namespace's own candidates (route-search.ts inPool), so the regions
    // may be cut differently; the same passage comes first.
    assert.ok(first.pages.some((p) => inDoc[0].pages.includes(p)), JSON.stringify({ first: first.pages, inDoc: inDoc[0].pages }));
  });

  test('a question that names no filing is not routed: its hits come from several companies', async () => {
    const hits = await search('net sales growth and adjusted earnings per share guidance', { min_relevance: 0 });
    assert.ok(new Set(hits.map((h) => h.doc_id)).size >= 3, JSON.stringify(hits.map((h) => h.doc_id)));
  });

  test('searchInDoc: an initialism of the document\'s own name ranks as the name written out', async () => {
    // The release writes "JNJ" only where a ticker or a subsidiary is listed; read as the name, the
    // initialism no longer lifts those passages (search/stages/identity-forms.ts).
    const inDoc = async (query: string) => {
      const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/searchInDoc', { query, format: 'json', doc_filter: docOf('JOHNSON_JOHNSON_2022Q4') });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body as { results: Hit[]; query: string }).results.map((h) => [h.pages, h.score]);
    };
    const named = await inDoc("What was Johnson & Johnson's worldwide sales growth in Q4 2022?");
    assert.ok(named.length > 0);
    assert.deepEqual(await inDoc("What was JnJ's worldwide sales growth in Q4 2022?"), named);
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/searchInDoc', { query: 'JnJ sales', doc_filter: docOf('JOHNSON_JOHNSON_2022Q4') });
    assert.equal((r.body as { query: string }).query, 'JnJ sales', 'the response echoes the query as asked');
  });

  test('searchInDoc: a filing that holds nothing of the question but the company\'s name answers nothing', async () => {
    // Its label puts "AMCOR" in every chunk of the 8-K; no chunk holds "industry" or "operate", so no passage
    // covers the question (search/stages/coverage.ts DEGENERATE_POOL). Every passage used to score 0.99.
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/searchInDoc', { query: 'What industry does AMCOR primarily operate in?', format: 'json', doc_filter: docOf('AMCOR_2022_8K') });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual((r.body as { results: Hit[] }).results.map((h) => h.score), []);
  });

  test('routing stays inside the request\'s scope: exclude_doc_ids removes the routed filing', async () => {
    const hits = await search("What was JnJ's worldwide sales growth in Q4 2022?", { exclude_doc_ids: [docOf('JOHNSON_JOHNSON_2022Q4')], min_relevance: 0 });
    assert.ok(hits.every((h) => h.doc_id !== docOf('JOHNSON_JOHNSON_2022Q4')));
  });
});
