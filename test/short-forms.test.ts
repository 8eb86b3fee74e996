// Against the real HTTP server, on each control-plane backend: a question that writes a short form
// differently from the documents ("net PPNE" where a filing defines "property, plant and equipment (PP&E)")
// gets the balance-sheet page that writes only the long form, because the filing's definition was stored at
// ingest (analysis/abbreviations.ts) and the query takes its long form (search/stages/short-forms.ts).
// The definitions live and die with their document: deleting the filing deletes them, and the same
// question no longer finds the page.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BACKENDS } from './helpers/index.ts';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, ingestDocsDone } from './helpers/api.ts';

const DOCS: Record<string, string> = {
  'notes.md': `# Notes to the financial statements

## Note 9. Property, plant and equipment (PP&E)

PP&E is carried at cost less accumulated depreciation. Buildings are depreciated over 40 years and machinery over 10 years.
`,
  'balance.md': `# Consolidated balance sheet

| Assets | 2021 | 2020 |
|---|---|---|
| Cash and cash equivalents | 1,944 | 1,786 |
| Inventories | 9,059 | 8,020 |
| Property, plant and equipment | 14,882 | 13,745 |
| Goodwill | 49,208 | 49,577 |
`,
  'office.md': `# Office notes

The cafeteria closes early on Fridays. Parking permits are renewed every January at the front desk.
`,
};

for (const backend of BACKENDS) {
  describe(`short forms the documents define (${backend})`, () => {
    let fx: ProjectFixture;
    let docs: Record<string, string>;

    before(async () => {
      fx = await startProjectFixture('short-forms-', backend);
      for (const [name, text] of Object.entries(DOCS)) fs.writeFileSync(path.join(fx.dir, name), text);
      docs = await ingestDocsDone(fx.server.baseUrl, fx.key, Object.keys(DOCS).map((name) => path.join(fx.dir, name)));
    });
    after(() => fx?.close());

    const ask = async () => {
      const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/search', { query: 'Did the company grow its PPNE?', format: 'json' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const body = r.body as { query: string; results: Array<{ content: string; score: number }> };
      assert.equal(body.query, 'Did the company grow its PPNE?', 'the response echoes the query as asked');
      return body.results;
    };

    test('"PPNE" finds the page that writes "property, plant and equipment"', async () => {
      const hits = await ask();
      assert.ok(hits.some((h) => h.content.includes('14,882') && h.score >= 0.3), JSON.stringify(hits));
      assert.ok(hits.every((h) => !h.content.includes('cafeteria')));
    });

    test('deleting the defining document deletes its definitions, and the question no longer finds the page', async () => {
      const notes = docs[path.join(fx.dir, 'notes.md')];
      const del = await api(fx.server.baseUrl, fx.key, 'DELETE', `/v3/docsearch/docs/${encodeURIComponent(notes)}`);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      const left = await fx.server.services.cp.db.selectFrom('document_abbreviations').select('doc_id').execute();
      assert.deepEqual(left, []);
      const hits = await ask();
      assert.ok(hits.every((h) => !(h.content.includes('14,882') && h.score >= 0.3)), JSON.stringify(hits));
    });
  });
}
