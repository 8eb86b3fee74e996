// Entry of the `docsearch` CLI: picks the command from the first words of the command line, parses
// its flags with node:util parseArgs (strict: an unknown flag is a usage error), runs it against the
// service through @docsearch/sdk, and returns the exit code (0 ok, 1 error, 2 usage).
import { parseArgs } from 'node:util';
import { bucketCommands } from './commands/buckets.ts';
import { docsCommands } from './commands/docs.ts';
import { evalCommand } from './commands/eval.ts';
import { ingestCommand } from './commands/ingest.ts';
import { jobsCommands } from './commands/jobs.ts';
import { projectCommands } from './commands/projects.ts';
import { searchCommand } from './commands/search.ts';
import { reindexCommands } from './commands/reindex.ts';
import { type Command, Context, DEFAULT_URL, GLOBAL_OPTIONS } from './context.ts';
import { describeError, EXIT_OK, EXIT_USAGE, UsageError } from './errors.ts';
import { type Io, println, processIo } from './io.ts';

export const COMMANDS: Command[] = [ingestCommand, searchCommand, evalCommand, ...docsCommands, ...jobsCommands, ...reindexCommands, ...bucketCommands, ...projectCommands];

const GLOBAL_VALUED = new Set(['--url', '-u', '--api-key', '-k', '--project', '-p']);

/** The non-flag words at the start of argv (skipping global flags and their values). */
function leadingWords(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i];
    if (GLOBAL_VALUED.has(a)) { i++; continue; }
    if (a.startsWith('-')) continue;
    words.push(a);
  }
  return words;
}

function help(): string {
  const lines = [
    'Usage: docsearch <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(18)} ${c.summary}`),
    '',
    'Global options (or environment):',
    `  -u, --url <url>        service URL (DOCSEARCH_URL, default ${DEFAULT_URL})`,
    '  -k, --api-key <key>    project key svc_prod_ds_…, or account key/login token (DOCSEARCH_API_KEY)',
    '  -p, --project <id>     project id, with an account key (DOCSEARCH_PROJECT_ID)',
    '  -h, --help             this help, or a command\'s usage with `docsearch <command> --help`',
    '',
    'Exit codes: 0 ok, 1 the operation failed, 2 wrong usage.',
  ];
  return lines.join('\n');
}

/**
 * Run the CLI.
 * @param argv arguments after the program name
 * @param io streams, environment and working directory (the process's by default)
 * @returns the exit code
 */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  try {
    const words = leadingWords(argv);
    const command = COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
    if (!command) {
      if (words.length === 0 && (argv.includes('--help') || argv.includes('-h'))) { println(io.out, help()); return EXIT_OK; }
      println(io.err, words.length ? `docsearch: unknown command "${words.join(' ')}"\n` : '');
      println(io.err, help());
      return EXIT_USAGE;
    }
    const { values, positionals } = parseArgs({
      args: argv, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true,
    });
    if (values.help) { println(io.out, `Usage: ${command.usage}\n\n${command.summary}`); return EXIT_OK; }
    const args = positionals.slice(command.words.length);
    return await command.run(new Context(io, values, args));
  } catch (err) {
    const { message, code } = describeError(err);
    println(io.err, `docsearch: ${message}`);
    return code;
  }
}

export { UsageError };
