// Every real document under ../shared/data/docs/{pptx,xlsx,ods,odt,odp,epub,rtf,eml,csv,txt,md,html,docx}
// goes through the HTTP API (raw upload -> job -> document) on SQLite, a few jobs at a time. Each one
// either reaches `done` with chunks, the expected page count, title and language and its characteristic
// text findable with searchInDoc (which also proves there is no mojibake), or fails with its specific
// code and a message — a rejected upload (400) counts as such a failure. Files without an entry in the
// table below only get the generic checks, so new sample files never break the suite.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, dataPath, ingestFile, waitForJob } from './helpers/api.ts';

// Every directory of ../shared/data/docs (every file through the HTTP API).
const DIRS = ['pdf', 'img', 'pptx', 'xlsx', 'ods', 'odt', 'odp', 'epub', 'rtf', 'eml', 'csv', 'txt', 'md', 'html', 'docx'];

interface Expect {
  /** Expected failure code (job error code or upload rejection code). */
  fail?: string;
  pages?: number;
  title?: string | RegExp;
  lang?: string | string[];
  /** Text that must appear in a chunk (searched with searchInDoc). */
  text?: string;
  tables?: number;
  images?: number;
}

const EXPECT: Record<string, Expect> = {
  'pdf/tracemonkey.pdf': { pages: 14, title: /Trace-based Just-in-Time Type Specialization/, lang: 'en', text: 'TraceMonkey' },
  'pdf/redp5110_sampled.pdf': { pages: 18, title: /Row and Column Access Control/, lang: 'en' },
  'pdf/fr_olap.pdf': { pages: 12, lang: 'fr' },
  'pdf/normal_4pages_ko.pdf': { pages: 4, lang: 'ko' },
  'pdf/korean-text-with-tables.pdf': { pages: 1, lang: 'ko' },
  'pdf/right_to_left_01_ar.pdf': { pages: 1, lang: 'ar' },
  'pdf/tika_testPDF_protected_owner.pdf': { pages: 41, lang: 'en' },
  'pdf/tika_testPDF_bad_page_303226.pdf': { pages: 19, lang: 'en' },
  'pdf/password_protected_pw-password.pdf': { fail: 'encrypted_document' },
  'pdf/docling_locked_pw-1234.pdf': { fail: 'encrypted_document' },
  'pdf/layout-parser-paper-with-table.pdf': { pages: 1, tables: 1 },
  'pdf/ocr_test_scanned.pdf': { pages: 1, lang: 'en' },
  'pdf/tika_testOCR_scanned.pdf': { pages: 1, lang: 'en' },
  'img/chi_sim_image.jpeg': { pages: 1, lang: 'zh', images: 1 },
  'img/jpn-vert.jpeg': { pages: 1, lang: 'ja', images: 1 },
  'img/tika_testOCR.png': { pages: 1, lang: 'en', images: 1 },
  'pptx/eng_spa_mult.pptx': { pages: 6, title: 'Testing multiple languages', lang: ['en', 'es'], text: 'spirit of brotherhood' },
  'pptx/fake-power-point-table.pptx': { pages: 1, title: 'A Slide with a Table', text: '| Tangerine | Pink | Aqua |', tables: 1 },
  'pptx/powerpoint_sample.pptx': { pages: 3, title: 'Test Table Slide', lang: 'en', text: 'Some notes on the second slide.' },
  'pptx/powerpoint_with_image.pptx': { pages: 1, title: 'Docling', text: 'Image test', images: 1 },
  'pptx/pptx_chart.pptx': { pages: 2, title: 'Quarterly Duck Survey', text: '| 2022 | 175 | 130 |', tables: 2 },
  'xlsx/2023-half-year-analyses-by-segment.xlsx': { pages: 5, title: '2023-half-year-analyses-by-segment.xlsx', lang: 'en', text: 'Zone NA', tables: 7 },
  'xlsx/password_protected.xlsx': { fail: 'encrypted_document' },
  'xlsx/stanley-cups.xlsx': { pages: 2, title: 'stanley-cups.xlsx', text: '| Maple Leafs | TOR | 13 |', tables: 2 },
  'xlsx/xlsx_01.xlsx': { pages: 4, title: 'xlsx_01.xlsx', text: '| first | second | third |' },
  'xlsx/xlsx_03_chartsheet.xlsx': { pages: 2, title: 'Wild Duck Observations', text: 'Chart: Wild Duck Observations by Year' },
  'ods/odf_table_with_title_01.ods': { pages: 1, title: 'odf_table_with_title_01.ods', text: '| 2024 | 180 |', tables: 1 },
  'odt/eng_spa_mult.odt': { pages: 1, title: 'eng_spa_mult.odt', lang: ['en', 'es'], text: 'Todos los seres humanos' },
  'odt/fake.odt': { pages: 1, title: 'fake.odt', text: '| Leader | Sarah | Mark | Ryan |', tables: 1 },
  'odt/text_document_01.odt': { pages: 1, title: 'Title', lang: 'en', text: 'bullet list 2.2.1' },
  'odt/tika_testODTEncrypted.odt': { fail: 'encrypted_document' },
  'odp/odf_presentation_01.odp': { pages: 3, title: 'Test Table Slide', text: 'Final notes on the third slide.', tables: 1 },
  'epub/epub_purvis_poetry.epub': { pages: 5, title: 'Poetry', lang: 'en', text: 'The cold storms of winter shall chill him no more' },
  'epub/tika_testEPUB.epub': { pages: 4, title: 'An ePub for Tika', lang: 'en', text: 'This is the text for chapter Two', images: 1 },
  'epub/winter-sports.epub': { pages: 10, title: 'Winter Sports in Switzerland', lang: 'en', text: 'Rinks and Skaters' },
  'rtf/fake-doc.rtf': { pages: 1, title: 'My First Heading', text: '| Row 2, Cell 1 | Row 2, Cell 2 |', tables: 1 },
  'rtf/tika_testRTFJapanese.rtf': { pages: 1, title: 'ゾルゲと尾崎、淡々と最期', lang: 'ja', text: '古書店で処刑記録見つかる' },
  'rtf/tika_testRTFRegularImages.rtf': { pages: 1, title: 'tika_testRTFRegularImages.rtf', text: 'Duck:', images: 2 },
  'rtf/tika_testRTFWord2010CzechCharacters.rtf': { pages: 1, lang: 'cs', text: 'Svitky od Mrtvého moře jsou starověké židovské' },
  'eml/email-with-image.eml': { pages: 1, title: 'email-with-image', text: 'The unstructured logo is attached', images: 1 },
  'eml/eng_spa_mult.eml': { pages: 1, title: 'Test email with multiple languages', lang: ['en', 'es'] },
  'eml/fake-email-attachment.eml': { pages: 2, title: 'Fake email with attachment', text: 'Lots of whitespace' },
  'eml/mime-different-plain-html.eml': { pages: 1, title: 'Example MIME Email', lang: 'en', text: 'Ray Tomlinson in 1971' },
  'eml/tika_testRFC822_multipart_attachments.eml': { pages: 3, title: 'EML 1', text: 'This is Test TXTB File for parser' },
  'csv/csv-inconsistent-header.csv': { pages: 1, title: 'csv-inconsistent-header.csv', text: '| a | b | c | d |', tables: 1 },
  'csv/csv-with-long-lines.csv': { pages: 1, tables: 1, text: 'SpearmanCorrelationCoefficient' },
  'csv/semicolon-delimited.csv': { pages: 1, text: '| ut labore | et, dolore | magna aliqua |', tables: 1 },
  'csv/stanley-cups-utf-16.csv': { pages: 1, text: '| Maple Leafs | TOR | 13 |', tables: 1 },
  'csv/stanley-cups.csv': { pages: 1, text: '| Maple Leafs | TOR | 13 |', tables: 1 },
  'txt/norwich-city.txt': { pages: 1, title: 'norwich-city.txt', lang: 'en', text: 'Norwich' },
  'txt/russian.cp866.txt': { pages: 1, lang: 'ru' },
  'md/simple-table.md': { pages: 1, tables: 1 },
  'html/wiki_duck.html': { pages: 1, lang: 'en', text: 'Duck' },
  'html/fake-html-cp1252.html': { pages: 1 },
  'docx/word_tables.docx': { tables: 1 },
};

interface Outcome {
  file: string;
  ms: number;
  status: 'done' | 'failed' | 'rejected';
  code?: string;
  message?: string;
  doc?: Record<string, unknown>;
}

const files = DIRS.flatMap((d) => fs.readdirSync(dataPath('docs', d)).sort().map((f) => `${d}/${f}`));

describe('every sample document through the API', () => {
  let server: TestServer;
  let key: string;
  const outcomes = new Map<string, Outcome>();

  before(async () => {
    server = await startTestServer({ backend: 'sqlite', env: { DOCSEARCH_WORKER_CONCURRENCY: '3' } });
    ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
    const queue = [...files];
    const run = async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const t0 = Date.now();
        const up = await ingestFile(server.baseUrl, key, dataPath('docs', file));
        if (up.status !== 201) {
          const body = up.body as { code?: string; message?: string };
          outcomes.set(file, { file, ms: Date.now() - t0, status: 'rejected', code: body.code, message: body.message });
          continue;
        }
        const job = await waitForJob(server.baseUrl, key, (up.body as { job_id: string }).job_id, 240_000);
        const outcome: Outcome = { file, ms: Date.now() - t0, status: job.status as 'done' | 'failed', code: job.error?.code, message: job.error?.message };
        if (job.status === 'done') outcome.doc = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${job.doc_id}`)).body as Record<string, unknown>;
        outcomes.set(file, outcome);
      }
    };
    await Promise.all([run(), run(), run(), run()]);
    if (process.env.FORMATS_REPORT) {
      for (const o of outcomes.values()) {
        const d = o.doc ?? {};
        console.log(`${o.file}\t${o.status}\t${o.ms}ms\t${o.code ?? ''}\tpages=${d.pages ?? ''}\ttitle=${JSON.stringify(d.title ?? '')}\tlang=${d.language ?? ''}\tchunks=${d.chunk_count ?? ''}\ttables=${d.table_count ?? ''}\timages=${d.image_count ?? ''}`);
      }
    }
  });
  after(async () => server?.close());

  test('no file crashes the pipeline: done with chunks, or a specific failure', () => {
    assert.equal(outcomes.size, files.length);
    for (const o of outcomes.values()) {
      if (o.status === 'done') {
        assert.ok((o.doc?.chunk_count as number) > 0, `${o.file}: no chunks`);
        assert.ok((o.doc?.pages as number) >= 1, `${o.file}: pages`);
        assert.ok(String(o.doc?.title ?? '').trim(), `${o.file}: empty title`);
        assert.match(String(o.doc?.language ?? ''), /^[a-z]{2,3}(-[A-Za-z]+)?$|^und$/, `${o.file}: language`);
      } else {
        assert.match(o.code ?? '', /^[a-z][a-z_]+$/, `${o.file}: failure without a code: ${JSON.stringify(o)}`);
        assert.notEqual(o.code, 'internal_error', `${o.file}: ${o.message}`);
        assert.ok((o.message ?? '').length > 10, `${o.file}: failure without a message`);
      }
    }
  });

  test('expected outcomes: failures, pages, titles, languages, tables, images', () => {
    for (const [file, e] of Object.entries(EXPECT)) {
      const o = outcomes.get(file);
      if (!o) continue; // sample set changed
      if (e.fail) {
        assert.notEqual(o.status, 'done', `${file} should fail`);
        assert.equal(o.code, e.fail, `${file}: ${o.message}`);
        continue;
      }
      assert.equal(o.status, 'done', `${file}: ${o.code} ${o.message}`);
      const d = o.doc!;
      if (e.pages !== undefined) assert.equal(d.pages, e.pages, `${file} pages`);
      if (typeof e.title === 'string') assert.equal(d.title, e.title, `${file} title`);
      if (e.title instanceof RegExp) assert.match(String(d.title), e.title, `${file} title`);
      if (e.lang) assert.ok([e.lang].flat().includes(String(d.language)), `${file} language ${d.language}`);
      if (e.tables !== undefined) assert.ok((d.table_count as number) >= e.tables, `${file} tables ${d.table_count}`);
      if (e.images !== undefined) assert.equal(d.image_count, e.images, `${file} images`);
    }
  });

  test('characteristic text is in the chunks (no mojibake, cells intact)', async () => {
    for (const [file, e] of Object.entries(EXPECT)) {
      const o = outcomes.get(file);
      if (!e.text || o?.status !== 'done') continue;
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/searchInDoc', {
        query: e.text, doc_filter: o.doc!.doc_id, format: 'json', min_relevance: 0, target_tokens: 20000, max_tokens: 40000,
      });
      assert.equal(r.status, 200, `${file}: ${JSON.stringify(r.body)}`);
      const contents = (r.body as { results: Array<{ content: string }> }).results.map((h) => h.content).join('\n');
      assert.ok(contents.includes(e.text), `${file}: "${e.text}" not found in ${contents.slice(0, 300)}`);
      assert.ok(!contents.includes('\ufffd'), `${file}: replacement characters`);
    }
  });
});
