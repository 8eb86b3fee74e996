// `docsearch buckets create|watch|status|pause|resume|cancel|failures`: bulk ingestion of an S3 or GCS
// bucket. `watch` (and `create --watch`) polls the task at the service's polling_guidance interval and
// draws its progress until a terminal state; exit 1 when it ends failed (or, with --strict,
// done_with_errors). Credentials come from flags or the usual AWS_* variables, or a GCS key file.
import fs from 'node:fs';
import path from 'node:path';
import type { BucketIngestTask, CreateBucketIngestRequest } from '@docsearch/sdk';
import { EXIT_ERROR, EXIT_OK, UsageError } from '../errors.ts';
import { bar, println, ProgressLine } from '../io.ts';
import type { Command, Context } from '../context.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const TERMINAL = new Set(['done', 'done_with_errors', 'failed']);

function credentials(ctx: Context, type: string): Record<string, unknown> {
  if (type === 'gcs') {
    const file = ctx.str('service-account-json') ?? ctx.io.env.GOOGLE_APPLICATION_CREDENTIALS;
    if (!file) throw new UsageError('gcs needs --service-account-json <key file> (or GOOGLE_APPLICATION_CREDENTIALS)');
    return { service_account_json: fs.readFileSync(path.resolve(ctx.io.cwd, file), 'utf8') };
  }
  const id = ctx.str('access-key-id') ?? ctx.io.env.AWS_ACCESS_KEY_ID;
  const secret = ctx.str('secret-access-key') ?? ctx.io.env.AWS_SECRET_ACCESS_KEY;
  if (!id || !secret) throw new UsageError('s3 needs --access-key-id and --secret-access-key (or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)');
  const token = ctx.io.env.AWS_SESSION_TOKEN;
  return { access_key_id: id, secret_access_key: secret, ...(token ? { session_token: token } : {}) };
}

function summary(t: BucketIngestTask): string {
  const p = t.progress;
  const settled = p.files_done + p.files_failed + p.files_cancelled;
  const total = p.listing_complete ? `${p.files_found}` : `${p.files_found}+`;
  return `${t.state.padEnd(16)} ${bar(settled, p.files_found)} of ${total}  failed ${p.files_failed}  in flight ${p.files_in_flight}`;
}

/** Poll the task until it is terminal, drawing its progress on stderr; the final view on stdout. */
async function watch(ctx: Context, id: string): Promise<number> {
  const progress = new ProgressLine(ctx.io.err);
  const interval = ctx.num('interval', 0.05, 3600);
  let task = await ctx.client.getBucketIngest(id);
  while (!TERMINAL.has(task.state)) {
    progress.update(summary(task));
    await sleep(1000 * (interval ?? task.polling_guidance.min_interval_seconds));
    task = await ctx.client.getBucketIngest(id);
  }
  progress.update(summary(task));
  progress.done();
  println(ctx.io.out, `${task.bucket_ingest_task_id}\t${task.state}\t${task.state_description}`);
  const failed = task.state === 'failed' || (ctx.flag('strict') && task.state === 'done_with_errors');
  return failed ? EXIT_ERROR : EXIT_OK;
}

const idCommand = (verb: 'pause' | 'resume' | 'cancel' | 'status', summaryText: string): Command => ({
  words: ['buckets', verb],
  usage: `docsearch buckets ${verb} <task_id> [--json]`,
  summary: summaryText,
  options: { json: { type: 'boolean' } },
  async run(ctx) {
    const id = ctx.arg(0, 'task_id');
    const c = ctx.client;
    const task = verb === 'pause' ? await c.pauseBucketIngest(id) : verb === 'resume' ? await c.resumeBucketIngest(id)
      : verb === 'cancel' ? await c.cancelBucketIngest(id) : await c.getBucketIngest(id);
    if (ctx.flag('json')) ctx.json(task);
    else println(ctx.io.out, `${task.bucket_ingest_task_id}\t${task.state}\t${task.state_description}`);
    return EXIT_OK;
  },
});

export const bucketCommands: Command[] = [
  {
    words: ['buckets', 'create'],
    usage: 'docsearch buckets create --bucket <name> [--type s3|gcs] [--prefix p] [--region r] [--endpoint url] [--glob "**/*.pdf"] '
      + '[--access-key-id id --secret-access-key s | --service-account-json file] [--dry-run] [--ack-egress] [--completion targets] [--watch] [--json]',
    summary: 'Start a bulk ingest of a bucket (one active task per account)',
    options: {
      type: { type: 'string' }, bucket: { type: 'string' }, prefix: { type: 'string' }, region: { type: 'string' },
      endpoint: { type: 'string' }, glob: { type: 'string' }, 'access-key-id': { type: 'string' },
      'secret-access-key': { type: 'string' }, 'service-account-json': { type: 'string' }, 'dry-run': { type: 'boolean' },
      'ack-egress': { type: 'boolean' }, completion: { type: 'string' }, watch: { type: 'boolean' }, interval: { type: 'string' },
      strict: { type: 'boolean' }, json: { type: 'boolean' },
    },
    async run(ctx) {
      const type = ctx.str('type') ?? 's3';
      if (type !== 's3' && type !== 'gcs') throw new UsageError(`--type must be s3 or gcs, got "${type}"`);
      const bucket = ctx.str('bucket');
      if (!bucket) throw new UsageError('buckets create needs --bucket');
      const body: CreateBucketIngestRequest = {
        source: {
          type, bucket, credentials: credentials(ctx, type),
          ...(ctx.str('prefix') ? { prefix: ctx.str('prefix') } : {}),
          ...(ctx.str('region') ? { region: ctx.str('region') } : {}),
          ...(ctx.str('endpoint') ? { endpoint: ctx.str('endpoint') } : {}),
        },
        ...(ctx.str('glob') ? { filter_glob: ctx.str('glob') } : {}),
        ...(ctx.flag('dry-run') ? { dry_run: true } : {}),
        ...(ctx.flag('ack-egress') ? { acknowledge_egress_cost: true } : {}),
      };
      const res = await ctx.client.createBucketIngest(body, { completion: ctx.str('completion') });
      if (!('bucket_ingest_task_id' in res)) { ctx.json(res); return (res as { valid?: boolean }).valid === false ? EXIT_ERROR : EXIT_OK; }
      if (ctx.flag('json')) ctx.json(res);
      else println(ctx.io.out, `${res.bucket_ingest_task_id}\t${res.state}\t${res.state_description}`);
      return ctx.flag('watch') ? watch(ctx, res.bucket_ingest_task_id) : EXIT_OK;
    },
  },
  {
    words: ['buckets', 'watch'],
    usage: 'docsearch buckets watch <task_id> [--interval seconds] [--strict]',
    summary: 'Show a task\'s progress until it ends (exit 1 if failed; --strict: also done_with_errors)',
    options: { interval: { type: 'string' }, strict: { type: 'boolean' } },
    run: (ctx) => watch(ctx, ctx.arg(0, 'task_id')),
  },
  idCommand('status', 'Show a task\'s state'),
  idCommand('pause', 'Pause a task (files in flight finish)'),
  idCommand('resume', 'Resume a paused task'),
  idCommand('cancel', 'Cancel a task'),
  {
    words: ['buckets', 'failures'],
    usage: 'docsearch buckets failures <task_id> [--json]',
    summary: 'List the files a task could not ingest',
    options: { json: { type: 'boolean' } },
    async run(ctx) {
      const id = ctx.arg(0, 'task_id');
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await ctx.client.listBucketIngestFailures(id, { cursor, limit: 1000 });
        all.push(...page.failures);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      if (ctx.flag('json')) ctx.json(all);
      else for (const f of all) println(ctx.io.out, [f.key, f.error_code ?? '', f.error_message ?? ''].join('\t'));
      return EXIT_OK;
    },
  },
];
