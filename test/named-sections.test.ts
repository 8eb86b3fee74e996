// The sections a question names by their heading, searched inside a real document through the real HTTP
// server (search/section-search.ts): "… the relationship with humans section" reads that section of a
// Wikipedia article even where the article's other sections repeat the question's words more often.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, dataPath, ingestDocsDone } from './helpers/api.ts';

describe('named sections: a question that names a section by its heading', () => {
  let fx: ProjectFixture;
  let doc: string;
  const inDoc = async (query: string, extra: Record<string, unknown> = {}) => {
    const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/searchInDoc', { query, doc_filter: doc, ...extra });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { results: Array<{ content: string; score: number }> };
  };
  /** Openings of the article's "Relationship with humans" passages (Hunting, Domestication, Heraldry, Cultural references). */
  const HUMANS = /^(\[IMAGE[^\]]*\]\s*)?(Humans have hunted ducks|Indian Runner ducks|Three black-colored ducks|In 2002, psychologist)/;

  before(async () => {
    fx = await startProjectFixture('named-sections-');
    const file = path.join(dataPath('docs'), 'html', 'wiki_duck.html');
    doc = Object.values(await ingestDocsDone(fx.server.baseUrl, fx.key, [file]))[0];
  });
  after(() => fx?.close());

  test('the named section comes first, one of its subsections on its own too', async () => {
    // Without the named section, the feeding and predator passages (which say "eat") came first.
    const { results } = await inDoc('What do ducks eat? Answer from the relationship with humans section.', { format: 'json', expand_tightness: 0 });
    assert.ok(results.length > 0 && results[0].score >= 0.3, JSON.stringify(results.map((h) => h.score)));
    assert.match(results[0].content, HUMANS, results[0].content.slice(0, 300));
    const cultural = await inDoc('Where do ducks live? Answer from the cultural references section.', { format: 'json', expand_tightness: 0 });
    assert.match(cultural.results[0]?.content ?? '', /^In 2002, psychologist/, JSON.stringify(cultural.results.slice(0, 2).map((h) => h.content.slice(0, 80))));
  });

  test('a question that names no section is ranked as before: its best passage is not forced to one section', async () => {
    const { results } = await inDoc('What do ducks eat?', { format: 'json', expand_tightness: 0 });
    assert.ok(results.length > 0);
    assert.doesNotMatch(results[0].content, HUMANS, results[0].content.slice(0, 300));
  });
});
