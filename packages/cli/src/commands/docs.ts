// `docsearch docs ls|get|rm` and `docsearch attributes`: the project's documents and attribute names.
import { EXIT_OK } from '../errors.ts';
import { println } from '../io.ts';
import { type Command, showCommand } from '../context.ts';

export const docsCommands: Command[] = [
  {
    words: ['docs', 'ls'],
    usage: 'docsearch docs ls [--json]',
    summary: 'List documents (doc_id, pages, chunks, ingested_at, title)',
    options: { json: { type: 'boolean' } },
    async run(ctx) {
      const list = await ctx.client.listDocuments();
      if (ctx.flag('json')) { ctx.json(list); return EXIT_OK; }
      for (const d of list.documents) {
        println(ctx.io.out, [d.doc_id, `${d.pages}p`, `${d.chunk_count} chunks`, d.ingested_at, d.title || d.filename].join('\t'));
      }
      println(ctx.io.err, `${list.total_documents} document(s) in ${list.namespace}`);
      return EXIT_OK;
    },
  },
  showCommand(['docs', 'get'], 'doc_id', 'Show one document\'s metadata (JSON)', (ctx, id) => ctx.client.getDocument(id)),
  {
    words: ['docs', 'rm'],
    usage: 'docsearch docs rm <doc_id>...',
    summary: 'Delete documents',
    async run(ctx) {
      ctx.arg(0, 'doc_id');
      for (const id of ctx.args) {
        const res = await ctx.client.deleteDocument(id);
        println(ctx.io.out, `deleted ${res.doc_id} (${res.vectors_deleted} vectors)`);
      }
      return EXIT_OK;
    },
  },
  {
    words: ['attributes'],
    usage: 'docsearch attributes [--json]',
    summary: 'List the project\'s typed attribute names',
    options: { json: { type: 'boolean' } },
    async run(ctx) {
      const res = await ctx.client.listAttributes();
      if (ctx.flag('json')) { ctx.json(res); return EXIT_OK; }
      for (const a of res.attributes) println(ctx.io.out, `${a.name}\t${a.type}`);
      println(ctx.io.err, `${res.attributes.length} of ${res.max_names} names used`);
      return EXIT_OK;
    },
  },
];
