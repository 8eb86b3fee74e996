// Runs the CLI's main() in-process with captured stdout/stderr and a given environment, as a shell
// would run `docsearch …` (the bin is only a tsx loader around main()).
import { PassThrough } from 'node:stream';
import { main } from '../src/main.ts';

export interface CliResult { code: number; out: string; err: string }

/** `docsearch ...argv` with env (DOCSEARCH_URL, DOCSEARCH_API_KEY, …) and cwd. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, cwd = process.cwd()): Promise<CliResult> {
  const out = new PassThrough();
  const err = new PassThrough();
  let o = '';
  let e = '';
  out.on('data', (c: Buffer) => { o += c.toString(); });
  err.on('data', (c: Buffer) => { e += c.toString(); });
  const code = await main(argv, { out, err, env, cwd });
  return { code, out: o, err: e };
}
