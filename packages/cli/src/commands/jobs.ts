// `docsearch jobs watch|status|cancel <job_id>`: follow a job's status stream until it ends (exit 1 if it
// failed; each line says where it is while it runs), read it once, or cancel it.
import { readJobProgress } from '@docsearch/sdk';
import { EXIT_ERROR, EXIT_OK } from '../errors.ts';
import { println } from '../io.ts';
import { type Command, showCommand } from '../context.ts';

export const jobsCommands: Command[] = [
  {
    words: ['jobs', 'watch'],
    usage: 'docsearch jobs watch <job_id> [--json]',
    summary: 'Follow a job until it is done or failed (exit 1 when it failed)',
    options: { json: { type: 'boolean' } },
    async run(ctx) {
      const id = ctx.arg(0, 'job_id');
      const last = await ctx.client.waitForJob(id, {
        onEvent: (ev) => {
          if (ctx.flag('json')) println(ctx.io.out, JSON.stringify(ev));
          else if (!ev.is_terminal) {
            // While it runs: where it is (stage, pages parsed, chunks embedded) in the last column.
            const { percent, text } = readJobProgress(ev);
            println(ctx.io.out, [new Date().toISOString(), ev.status, ev.code, '', `${percent}% ${text}`].join('\t'));
          } else println(ctx.io.out, [new Date().toISOString(), ev.status, ev.code, ev.doc_id ?? '', ev.error ? `${ev.error.code}: ${ev.error.message}` : ''].join('\t').trimEnd());
        },
      });
      return last.status === 'done' ? EXIT_OK : EXIT_ERROR;
    },
  },
  showCommand(['jobs', 'status'], 'job_id', 'Show a job\'s status (JSON)', (ctx, id) => ctx.client.getJobStatus(id)),
  {
    words: ['jobs', 'cancel'],
    usage: 'docsearch jobs cancel <job_id>',
    summary: 'Cancel an unfinished job (or delete a finished job\'s record)',
    async run(ctx) {
      const res = await ctx.client.deleteJob(ctx.arg(0, 'job_id'));
      println(ctx.io.out, `${res.job_id}\t${res.result}`);
      return EXIT_OK;
    },
  },
];
