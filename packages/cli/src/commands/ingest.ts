// `docsearch ingest <files|dirs|globs|urls>… [--wait]`: uploads every file (a directory means all files
// below it; a pattern is expanded with tinyglobby; an http(s) URL is fetched by the service) in
// batches, with a progress bar per batch for the uploads and, with --wait, for the jobs finishing.
// stdout gets one line per input: `job_id<TAB>input` (no --wait) or `doc_id<TAB>status<TAB>input` with
// the error after a failed job; --json prints everything as one JSON array instead. Exit 1 when any
// upload or job failed.
import fs from 'node:fs';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { readJobProgress, type DocsearchClient, type IngestOptions, type JobStatusEvent } from '@docsearch/sdk';
import { describeError, EXIT_ERROR, EXIT_OK, UsageError } from '../errors.ts';
import { bar, elapsed, println, ProgressLine } from '../io.ts';
import type { Command, Context } from '../context.ts';

interface Outcome { input: string; job_id?: string; doc_id?: string; status: string; error?: string }

const isUrl = (s: string): boolean => /^https?:\/\//i.test(s);

/**
 * Files (absolute paths, sorted, deduplicated) and URLs named by the arguments.
 * @throws UsageError for a path that does not exist or a pattern that matches nothing
 */
export async function expandInputs(inputs: string[], cwd: string): Promise<string[]> {
  const out = new Set<string>();
  for (const input of inputs) {
    if (isUrl(input)) { out.add(input); continue; }
    const abs = path.resolve(cwd, input);
    const stat = fs.statSync(abs, { throwIfNoEntry: false });
    let found: string[];
    if (stat?.isFile()) found = [abs];
    else if (stat?.isDirectory()) found = await glob('**/*', { cwd: abs, absolute: true, onlyFiles: true });
    else if (isDynamicPattern(input)) found = await glob(input, { cwd, absolute: true, onlyFiles: true });
    else throw new UsageError(`no such file or directory: ${input}`);
    if (found.length === 0) throw new UsageError(`nothing to ingest in ${input}`);
    for (const f of found.sort()) out.add(path.normalize(f));
  }
  return [...out];
}

/** Run fn over items with at most `limit` at once, in order of start. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  });
  await Promise.all(lanes);
}

function ingestOptions(ctx: Context): IngestOptions {
  const parse = (flag: string): Record<string, any> | undefined => {
    const raw = ctx.str(flag);
    if (raw === undefined) return undefined;
    try {
      const v = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v;
    } catch { /* reported below */ }
    throw new UsageError(`--${flag} must be a JSON object, got ${raw}`);
  };
  return { attributes: parse('attributes'), attributeSchema: parse('attribute-schema'), unencryptedStrings: parse('strings') };
}

async function uploadOne(client: DocsearchClient, input: string, opts: IngestOptions): Promise<Outcome> {
  try {
    const job = isUrl(input) ? await client.ingest(undefined, { ...opts, remoteUrl: input }) : await client.ingestFile(input, opts);
    return { input, job_id: job.job_id, status: 'pending' };
  } catch (err) {
    return { input, status: 'upload_failed', error: describeError(err).message };
  }
}

function settle(o: Outcome, ev: JobStatusEvent): void {
  o.status = ev.status;
  o.doc_id = ev.doc_id;
  if (ev.status === 'failed') o.error = ev.error ? `${ev.error.code}: ${ev.error.message}` : `code ${ev.code}`;
}

export const ingestCommand: Command = {
  words: ['ingest'],
  usage: 'docsearch ingest <file|dir|glob|url>... [--wait] [--json] [--batch-size n] [--attributes json] [--attribute-schema json] [--strings json]',
  summary: 'Upload files (or have the service fetch URLs); --wait follows each job to the end',
  options: {
    wait: { type: 'boolean', short: 'w' },
    json: { type: 'boolean' },
    'batch-size': { type: 'string' },
    concurrency: { type: 'string' },
    attributes: { type: 'string' },
    'attribute-schema': { type: 'string' },
    strings: { type: 'string' },
  },
  async run(ctx) {
    if (ctx.args.length === 0) throw new UsageError('ingest needs at least one file, directory, glob or URL');
    const batchSize = ctx.num('batch-size', 1, 1000, true) ?? 20;
    const concurrency = ctx.num('concurrency', 1, 32, true) ?? 4;
    const opts = ingestOptions(ctx);
    const inputs = await expandInputs(ctx.args, ctx.io.cwd);
    const client = ctx.client;
    const batches = Math.ceil(inputs.length / batchSize);
    const outcomes: Outcome[] = [];
    const progress = new ProgressLine(ctx.io.err);
    const started = Date.now();
    for (let b = 0; b < batches; b++) {
      const batch = inputs.slice(b * batchSize, (b + 1) * batchSize);
      const label = `batch ${b + 1}/${batches}`;
      const results: Outcome[] = new Array(batch.length);
      let uploaded = 0;
      progress.update(`${label} uploading  ${bar(0, batch.length)}`);
      await eachLimited(batch.map((input, i) => ({ input, i })), concurrency, async ({ input, i }) => {
        results[i] = await uploadOne(client, input, opts);
        progress.update(`${label} uploading  ${bar(++uploaded, batch.length)}`);
      });
      if (ctx.flag('wait')) {
        const pending = results.filter((o) => o.job_id);
        let finished = 0;
        // One file: its own progress (pages parsed, chunks embedded); several: how many have finished.
        const onEvent = pending.length === 1
          ? (ev: JobStatusEvent) => {
            const { percent, text } = readJobProgress(ev);
            progress.update(`${label} processing ${bar(0, 1)} ${path.basename(pending[0].input)}: ${text} ${percent}% ${elapsed(started)}`);
          }
          : undefined;
        progress.update(`${label} processing ${bar(0, pending.length)} ${elapsed(started)}`);
        await eachLimited(pending, 16, async (o) => {
          try {
            settle(o, await client.waitForJob(o.job_id!, { onEvent }));
          } catch (err) {
            o.status = 'unknown';
            o.error = describeError(err).message;
          }
          progress.update(`${label} processing ${bar(++finished, pending.length)} ${elapsed(started)}`);
        });
      }
      progress.done();
      outcomes.push(...results);
      if (!ctx.flag('json')) for (const o of results) println(ctx.io.out, formatOutcome(o, ctx.flag('wait')));
    }
    if (ctx.flag('json')) ctx.json(outcomes);
    const failed = outcomes.filter((o) => o.error);
    if (failed.length) println(ctx.io.err, `${failed.length} of ${outcomes.length} failed`);
    return failed.length ? EXIT_ERROR : EXIT_OK;
  },
};

function formatOutcome(o: Outcome, waited: boolean): string {
  const cols = waited ? [o.doc_id ?? '-', o.status, o.input] : [o.job_id ?? '-', o.input];
  if (o.error) cols.push(o.error);
  return cols.join('\t');
}
