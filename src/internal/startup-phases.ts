// Start-up timing: each phase of start-up (module loading, control plane, index, models, reconcile, …)
// is logged at info level with its duration, so a slow restart says where its time went instead of
// leaving an operator to guess from the gap between two log lines.
import type { Logger } from 'pino';

export interface StartupPhases {
  /**
   * Run one phase and log `{phase, ms}` at info when it ends (also when it throws).
   * @returns what `run` returns
   */
  time<T>(phase: string, run: () => Promise<T> | T): Promise<T>;
  /** Durations so far, ms by phase name, in the order they ended. */
  readonly timings: Record<string, number>;
}

/** A phase timer writing to `logger` (pino; the `startup` message at info level). */
export function startupPhases(logger: Logger): StartupPhases {
  const timings: Record<string, number> = {};
  return {
    timings,
    async time<T>(phase: string, run: () => Promise<T> | T): Promise<T> {
      const t0 = performance.now();
      try {
        return await run();
      } finally {
        const ms = Math.round(performance.now() - t0);
        timings[phase] = ms;
        logger.info({ phase, ms }, 'startup phase');
      }
    },
  };
}
