// Exit codes a shell user expects, and how a failure becomes one line on stderr: 0 success, 1 the
// operation failed (service error, failed job, unreachable service), 2 the command line was wrong.
import { DocsearchError } from '@docsearch/sdk';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

/** A wrong command line: printed with a hint to `--help`, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One line for stderr describing any error, and its exit code. */
export function describeError(err: unknown): { message: string; code: number } {
  if (err instanceof UsageError) return { message: `${err.message}\nRun 'docsearch --help' for usage.`, code: EXIT_USAGE };
  if (err instanceof DocsearchError) {
    const where = err.status ? `HTTP ${err.status}, ` : '';
    const details = err.details ? ` ${JSON.stringify(err.details)}` : '';
    return { message: `${err.message} (${where}${err.code})${details}`, code: EXIT_ERROR };
  }
  if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
    || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return { message: `${(err as Error).message}\nRun 'docsearch --help' for usage.`, code: EXIT_USAGE };
  }
  return { message: (err as Error)?.message ?? String(err), code: EXIT_ERROR };
}
