// `docsearch reindex [--json] [--no-wait]` and `docsearch index`: rebuild the project's namespace online into a
// new index generation (POST /v3/docsearch/reindex, docs/reindex.md) and follow the job with a progress line
// on stderr (documents rebuilt, elapsed time) until the switch; `index` shows what built the serving index
// and whether it needs a reindex. Exit 1 when the reindex fails.
import { readJobProgress } from '@docsearch/sdk';
import { EXIT_ERROR, EXIT_OK } from '../errors.ts';
import { elapsed, println, ProgressLine } from '../io.ts';
import type { Command } from '../context.ts';

export const reindexCommands: Command[] = [
  {
    words: ['reindex'],
    usage: 'docsearch reindex [--no-wait] [--json]',
    summary: 'Rebuild the namespace\'s index from its stored originals while searches keep answering, then switch',
    options: { 'no-wait': { type: 'boolean' }, json: { type: 'boolean' } },
    async run(ctx) {
      const job = await ctx.client.reindex();
      if (ctx.flag('no-wait')) {
        if (ctx.flag('json')) ctx.json(job);
        else println(ctx.io.out, job.job_id);
        return EXIT_OK;
      }
      const started = Date.now();
      const progress = new ProgressLine(ctx.io.err);
      const last = await ctx.client.waitForJob(job.job_id, {
        onEvent: (ev) => {
          if (ev.is_terminal) return;
          const { percent, text } = readJobProgress(ev);
          progress.update(`reindex ${text} ${percent}% ${elapsed(started)}`);
        },
      });
      progress.update(`reindex ${last.status} ${elapsed(started)}`);
      progress.done();
      if (ctx.flag('json')) ctx.json(await ctx.client.describeIndex());
      if (last.status !== 'done') {
        println(ctx.io.err, `docsearch: reindex ${job.job_id} failed${last.error ? `: ${last.error.message} (${last.error.code})` : ''}`);
        return EXIT_ERROR;
      }
      if (!ctx.flag('json')) {
        const d = await ctx.client.describeIndex();
        println(ctx.io.out, `${d.namespace}\tgeneration ${d.generation}\t${d.chunks} chunks\t${d.needs_reindex ? `needs reindex: ${d.reasons.join('; ')}` : 'up to date'}`);
      }
      return EXIT_OK;
    },
  },
  {
    words: ['index'],
    usage: 'docsearch index',
    summary: 'Show the namespace\'s index: generation, what built it, whether it needs a reindex (JSON)',
    async run(ctx) {
      ctx.json(await ctx.client.describeIndex());
      return EXIT_OK;
    },
  },
];
