// Against the real HTTP server: an English question finds a passage that writes its words in
// another form — a derivation ("acquired" / "acquisitions", analysis/english-forms.ts) or the other spelling
// ("tumor" / "tumour") — in the default context, with the forms loaded at start-up (createApp). Without the
// forms both questions get an empty context: no document holds their words as written.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, ingestDocsDone } from './helpers/api.ts';

const DOCS: Record<string, string> = {
  'deals.md': `# Note 2. Acquisitions

Trillium: In November 2021 we completed the acquisition of Trillium Therapeutics, a clinical stage
immuno-oncology company, for total consideration of $2.0 billion.

Arena: In March 2022 we completed the acquisition of Arena Pharmaceuticals for $6.6 billion in cash.
`,
  'oncology.md': `# Tumour biology

The tumour microenvironment shapes how fast a tumour grows: hypoxia and the stroma both speed it up, and
tumour cells that escape immune surveillance spread first to the regional lymph nodes.
`,
  'office.md': `# Office notes

The cafeteria closes early on Fridays. Parking permits are renewed every January at the front desk.
The quarterly all-hands meeting moves to the large auditorium. Bring your badge to every meeting.
`,
};

describe('other English forms of a question\'s words', () => {
  let fx: ProjectFixture;

  before(async () => {
    fx = await startProjectFixture('english-forms-');
    for (const [name, text] of Object.entries(DOCS)) fs.writeFileSync(path.join(fx.dir, name), text);
    await ingestDocsDone(fx.server.baseUrl, fx.key, Object.keys(DOCS).map((name) => path.join(fx.dir, name)));
  });
  after(() => fx?.close());

  test('a derivation: "acquired" finds the page of acquisitions', async () => {
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/search', { query: 'What was acquired?' });
    assert.equal(r.status, 200);
    assert.ok((r.body as { context: string }).context.includes('Trillium'), JSON.stringify(r.body));
  });

  test('the other spelling and a derivation: "tumor growth" finds how a tumour grows', async () => {
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/search', { query: 'tumor growth', format: 'json' });
    assert.equal(r.status, 200);
    const hits = (r.body as { results: Array<{ content: string; score: number }> }).results;
    assert.ok(hits.length > 0 && hits[0].content.includes('microenvironment') && hits[0].score >= 0.3, JSON.stringify(hits));
    assert.ok(hits.every((h) => !h.content.includes('cafeteria')));
  });
});
