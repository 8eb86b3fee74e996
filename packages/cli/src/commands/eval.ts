// `docsearch eval cases.jsonl [--variant '{…}']... [--name N] [--json]`: evaluates the project's search
// on labelled questions through POST /v3/docsearch/evaluations (docs/evaluations.md). One case per line
// ({"query", "doc_id"? or "doc_ids"?, "pages"?, "chunk_indices"?, "answers"?, "id"?}); each --variant is a JSON object
// of search fields. Progress goes to stderr; the result is a table of the variants, or the whole
// evaluation as JSON with --json. Exit 1 when the evaluation fails.
import fs from 'node:fs';
import path from 'node:path';
import { evaluationTable, type EvaluationCase, type EvaluationVariant } from '@docsearch/sdk';
import { EXIT_ERROR, EXIT_OK, UsageError } from '../errors.ts';
import { bar, println, ProgressLine } from '../io.ts';
import type { Command } from '../context.ts';

/**
 * The cases of a JSONL file (blank lines skipped).
 * @throws UsageError naming the line that is not a JSON object, or when the file cannot be read
 */
export function readCases(file: string): EvaluationCase[] {
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch (err) { throw new UsageError(`cannot read ${file}: ${(err as Error).message}`); }
  const cases: EvaluationCase[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let v: unknown;
    try { v = JSON.parse(line); } catch { throw new UsageError(`${file}:${i + 1}: not JSON`); }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${file}:${i + 1}: a case is a JSON object`);
    cases.push(v as EvaluationCase);
  }
  if (cases.length === 0) throw new UsageError(`${file} holds no cases`);
  return cases;
}

function parseVariant(text: string): EvaluationVariant {
  let v: unknown;
  try { v = JSON.parse(text); } catch { throw new UsageError(`--variant must be a JSON object, got "${text}"`); }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`--variant must be a JSON object, got "${text}"`);
  return v as EvaluationVariant;
}

export const evalCommand: Command = {
  words: ['eval'],
  usage: 'docsearch eval <cases.jsonl> [--variant \'{"min_relevance":0.4}\']... [--name <name>] [--json]',
  summary: 'Evaluate search on labelled questions: found in context, tokens, ranking, calibration',
  options: {
    variant: { type: 'string', multiple: true },
    name: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(ctx) {
    const file = path.resolve(ctx.io.cwd, ctx.arg(0, 'cases file (JSONL)'));
    const cases = readCases(file);
    const variants = ctx.list('variant').map(parseVariant);
    const progress = new ProgressLine(ctx.io.err);
    const ev = await ctx.client.runEvaluation({
      cases, ...(variants.length ? { variants } : {}), ...(ctx.str('name') ? { name: ctx.str('name') } : {}),
    }, { onProgress: (e) => progress.update(`evaluating ${e.status.padEnd(7)} ${bar(e.progress.done, e.progress.total)}`) });
    progress.update(`evaluation ${ev.status} ${bar(ev.progress.done, ev.progress.total)}`);
    progress.done();
    if (ctx.flag('json')) ctx.json(ev);
    if (ev.status !== 'done' || !ev.report) {
      println(ctx.io.err, `docsearch: evaluation ${ev.evaluation_id} ${ev.status}${ev.error ? `: ${ev.error.message} (${ev.error.code})` : ''}`);
      return EXIT_ERROR;
    }
    if (!ctx.flag('json')) {
      println(ctx.io.out, evaluationTable(ev.report));
      println(ctx.io.err, `evaluation ${ev.evaluation_id}: ${ev.case_count} cases × ${ev.variants.length} variant(s)`);
    }
    return EXIT_OK;
  },
};
