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
    return r.body as { context: string };
  };
  /** The section headings of a context, in order (the `## ` lines, docs/context-grammar.md). */
  const headings = (context: string) => context.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3));

  before(async () => {
    fx = await startProjectFixture('named-sections-');
    const file = path.join(dataPath('docs'), 'html', 'wiki_duck.html');
    doc = Object.values(await ingestDocsDone(fx.server.baseUrl, fx.key, [file]))[0];
  });
  after(() => fx?.close());

  test('the named section comes first in the prompt-ready context', async () => {
    const { context } = await inDoc('Which ducks are kept by people? Answer from the relationship with humans section.', { target_tokens: 600 });
    assert.match(headings(context)[0] ?? '', /Relationship with humans/, context.slice(0, 800));
  });

  test('a question that names no section is ranked as before: its best passage is not forced to one section', async () => {
    const { context } = await inDoc('What do ducks eat when they dabble?', { target_tokens: 600 });
    assert.doesNotMatch(headings(context)[0] ?? '', /Relationship with humans/, context.slice(0, 800));
  });
});
