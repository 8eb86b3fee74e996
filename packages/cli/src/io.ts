// Where the CLI writes: stdout for results (what a pipe wants), stderr for progress and errors. Tests
// pass their own streams; a progress bar is drawn in place only on a terminal, otherwise progress is
// printed as plain lines so logs stay readable.
import type { Writable } from 'node:stream';

export interface Io {
  out: Writable;
  err: Writable;
  /** Environment the configuration is read from (process.env by default). */
  env: Record<string, string | undefined>;
  /** Working directory for relative paths and globs. */
  cwd: string;
}

/** The process's own streams, environment and directory. */
export function processIo(): Io {
  return { out: process.stdout, err: process.stderr, env: process.env, cwd: process.cwd() };
}

export const println = (w: Writable, line = ''): void => { w.write(`${line}\n`); };

/** `[#######.............] 7/20` for a fraction of a total. */
export function bar(done: number, total: number, width = 24): string {
  const filled = total > 0 ? Math.round((Math.min(done, total) / total) * width) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}

/** Time since `startMs` (a Date.now() value) for a progress line: "4.2 s", "1 min 05 s". */
export function elapsed(startMs: number, now = Date.now()): string {
  const s = Math.max(0, now - startMs) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
}

/**
 * A progress line: redrawn in place on a TTY (carriage return), printed only when its text changes
 * elsewhere.
 */
export class ProgressLine {
  private last = '';
  constructor(private readonly w: Writable) {}

  private get tty(): boolean { return Boolean((this.w as { isTTY?: boolean }).isTTY); }

  update(text: string): void {
    if (text === this.last) return;
    this.last = text;
    if (this.tty) this.w.write(`\r\x1b[2K${text}`);
    else println(this.w, text);
  }

  /** End the line (on a TTY the cursor moves below it). */
  done(): void {
    if (this.tty && this.last) this.w.write('\n');
    this.last = '';
  }
}
