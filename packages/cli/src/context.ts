// What every command gets: its parsed flags and arguments, the output streams, and an SDK client
// configured from flags first, then the environment (DOCSEARCH_URL, DOCSEARCH_API_KEY,
// DOCSEARCH_PROJECT_ID).
import type { ParseArgsConfig } from 'node:util';
import { DocsearchClient } from '@docsearch/sdk';
import { UsageError } from './errors.ts';
import type { Io } from './io.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** Flags every command accepts. */
export const GLOBAL_OPTIONS: Options = {
  url: { type: 'string', short: 'u' },
  'api-key': { type: 'string', short: 'k' },
  project: { type: 'string', short: 'p' },
  help: { type: 'boolean', short: 'h' },
};

/** Where the service is when neither --url nor DOCSEARCH_URL says (the service's default port). */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface Command {
  /** Words that select it, e.g. ['docs', 'ls']. */
  words: string[];
  usage: string;
  summary: string;
  options?: Options;
  run(ctx: Context): Promise<number>;
}

export class Context {
  private clientCache?: DocsearchClient;

  constructor(readonly io: Io, readonly values: Values, readonly args: string[]) {}

  /** The SDK client; a missing API key is a usage error (exit 2). */
  get client(): DocsearchClient {
    if (this.clientCache) return this.clientCache;
    const baseUrl = this.str('url') ?? this.io.env.DOCSEARCH_URL ?? DEFAULT_URL;
    const apiKey = this.str('api-key') ?? this.io.env.DOCSEARCH_API_KEY;
    if (!apiKey) throw new UsageError('no API key: set DOCSEARCH_API_KEY or pass --api-key');
    const projectId = this.str('project') ?? this.io.env.DOCSEARCH_PROJECT_ID;
    this.clientCache = new DocsearchClient({ baseUrl, apiKey, projectId, headers: { 'user-agent': 'docsearch-cli/0.1' } });
    return this.clientCache;
  }

  str(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  /** Every value of a repeatable string option. */
  list(name: string): string[] {
    const v = this.values[name];
    return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
  }

  /**
   * A numeric option within [min, max], or undefined when absent.
   * @throws UsageError when it is not such a number
   */
  num(name: string, min: number, max: number, integer = false): number | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} in ${min}..${max}, got "${raw}"`);
    }
    return n;
  }

  /**
   * The i-th positional argument.
   * @throws UsageError naming `what` when it is missing
   */
  arg(i: number, what: string): string {
    const v = this.args[i];
    if (v === undefined || v === '') throw new UsageError(`missing ${what}`);
    return v;
  }

  /** Print a value as indented JSON on stdout. */
  json(value: unknown): void {
    this.io.out.write(`${JSON.stringify(value, null, 2)}\n`);
  }
}

/** A command `<words> <id>` that prints one resource as JSON (e.g. `docs get`, `jobs status`). */
export function showCommand(words: string[], what: string, summary: string, fetch: (ctx: Context, id: string) => Promise<unknown>): Command {
  return {
    words,
    usage: `docsearch ${words.join(' ')} <${what}>`,
    summary,
    async run(ctx) {
      ctx.json(await fetch(ctx, ctx.arg(0, what)));
      return 0;
    },
  };
}
