// `docsearch projects create|ls|rm` (account key): manage projects; `create` prints the new project's key,
// which the service shows only once.
import { EXIT_OK, UsageError } from '../errors.ts';
import { println } from '../io.ts';
import type { Command } from '../context.ts';

export const projectCommands: Command[] = [
  {
    words: ['projects', 'create'],
    usage: 'docsearch projects create <name> [--product docsearch|altproduct] [--protected] [--json]',
    summary: 'Create a project and print its API key (shown once)',
    options: { product: { type: 'string' }, protected: { type: 'boolean' }, json: { type: 'boolean' } },
    async run(ctx) {
      const product = ctx.str('product') ?? 'docsearch';
      if (product !== 'docsearch' && product !== 'altproduct') throw new UsageError(`--product must be docsearch or altproduct, got "${product}"`);
      const p = await ctx.client.createProject({ name: ctx.arg(0, 'project name'), product, protected: ctx.flag('protected') });
      if (ctx.flag('json')) ctx.json(p);
      else println(ctx.io.out, `${p.id}\t${p.api_key}`);
      return EXIT_OK;
    },
  },
  {
    words: ['projects', 'ls'],
    usage: 'docsearch projects ls [--json]',
    summary: 'List the account\'s projects',
    options: { json: { type: 'boolean' } },
    async run(ctx) {
      const res = await ctx.client.listProjects();
      if (ctx.flag('json')) ctx.json(res);
      else for (const p of res.projects) println(ctx.io.out, [p.id, p.name, p.product, p.created_at].join('\t'));
      return EXIT_OK;
    },
  },
  {
    words: ['projects', 'rm'],
    usage: 'docsearch projects rm <project_id>',
    summary: 'Delete a project, its key and its documents',
    async run(ctx) {
      const id = ctx.arg(0, 'project_id');
      await ctx.client.deleteProject(id);
      println(ctx.io.out, `deleted ${id}`);
      return EXIT_OK;
    },
  },
];
