// The prompt-ready context against its token target on real filings (../shared/data/qa): the budget plans
// with the stored per-chunk token counts, rendering adds page markers, gaps and section-heading lines, and
// the heading lines are the part that gives way (stages/context-tokens.ts fitHeadings). Only a lone hit
// the budget let past the target may grow toward max_tokens (stages/budget.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startProjectFixture, type ProjectFixture } from './helpers/project-fixture.ts';
import { api, dataPath, ingestDocsDone } from './helpers/api.ts';
import { countTokens } from '../src/analysis/token-count.ts';

const FILES = ['financebench-dev/pdfs/JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf', 'financebench/pdfs/AMCOR_2023Q4_EARNINGS.pdf'];

/** What the stored counts may miss of a rendered context of several hits (page markers, gaps): 2 %. */
const ESTIMATE_SLACK = 0.02;

describe('context budget: several hits stay within their target', () => {
  let fx: ProjectFixture;
  before(async () => {
    fx = await startProjectFixture('context-budget-');
    await ingestDocsDone(fx.server.baseUrl, fx.key, FILES.map((f) => path.join(dataPath('qa'), f)));
  });
  after(() => fx?.close());

  test('heading lines never take a context of several hits past target_tokens', async () => {
    // Tables of many small chunks: the rendered content runs a little past the planned target, and the
    // section headings (shown on top of the budget) used to be kept up to max_tokens — 882 tokens for a
    // target of 750, 1,993 for 1,800.
    let several = 0;
    for (const query of ['worldwide sales growth by segment', 'pharmaceutical sales by franchise', 'adjusted EBIT and net sales by segment']) {
      for (let target = 600; target <= 2100; target += 150) {
        const r = await api(fx.server.baseUrl, fx.key, 'POST', '/v3/docsearch/search', { query, min_relevance: 0, target_tokens: target });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const body = r.body as { context: string; tokens_estimated: number; result_count: number };
        assert.equal(body.tokens_estimated, countTokens(body.context));
        if (body.result_count < 2) continue;
        several++;
        assert.ok(body.tokens_estimated <= target * (1 + ESTIMATE_SLACK), `${query}, target ${target}: ${body.tokens_estimated}`);
        if (body.tokens_estimated > target) assert.ok(!body.context.includes('\n## '), `${query}, target ${target}: heading lines past the target`);
      }
    }
    assert.ok(several >= 20, `only ${several} contexts held several hits`);
  });
});
