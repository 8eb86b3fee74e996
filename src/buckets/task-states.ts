// The bucket-ingest task state machine: exactly the spec's twelve states ("States and transitions",
// Bucket ingest task) and its transitions, plus DESIGN.md §5 for what the spec leaves open: pause and
// resume (a paused task returns to the phase it paused in), cancel (-> failed, described as cancelled)
// and retryFailed (a finished task goes back to materialising, or to listing if listing never finished);
// the next run of a repeating sync task (docs/sync.md) goes from a finished state back to queued_org.
// Every state change in the store goes through `assertTransition`, so an illegal move is a bug, loudly.

export const TASK_STATES = [
  'created', 'queued_org', 'listing', 'materialising', 'done', 'done_with_errors', 'failed',
  'paused_credit_exhausted', 'paused_credential_error', 'paused_destination_credential_error',
  'paused_egress_quota_exhausted', 'paused_user',
] as const;

export type TaskState = (typeof TASK_STATES)[number];
/** The phases a paused task can return to. */
export type TaskPhase = 'queued_org' | 'listing' | 'materialising';
export type PausedState = Extract<TaskState, `paused_${string}`>;

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['done', 'done_with_errors', 'failed']);
export const PAUSED_STATES: ReadonlySet<TaskState> = new Set([
  'paused_credit_exhausted', 'paused_credential_error', 'paused_destination_credential_error',
  'paused_egress_quota_exhausted', 'paused_user',
]);
/** States in which the driver makes progress. */
export const RUNNING_STATES: ReadonlySet<TaskState> = new Set(['created', 'queued_org', 'listing', 'materialising']);

export const isTerminal = (s: string): boolean => TERMINAL_STATES.has(s as TaskState);
export const isPaused = (s: string): boolean => PAUSED_STATES.has(s as TaskState);
export const isRunning = (s: string): boolean => RUNNING_STATES.has(s as TaskState);
/** Active = counts against "one active task per account": everything but the terminal states. */
export const isActive = (s: string): boolean => !isTerminal(s);

const PAUSED = [...PAUSED_STATES];

/** Allowed moves. Paused states may be entered from any running phase after created. */
const TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
  created: ['queued_org', 'failed'],
  queued_org: ['listing', 'failed', ...PAUSED],
  // listing -> done_with_errors: the file cap (or the 500 GB task limit) was reached (spec table).
  listing: ['materialising', 'done_with_errors', 'failed', ...PAUSED],
  materialising: ['done', 'done_with_errors', 'failed', ...PAUSED],
  paused_credit_exhausted: ['queued_org', 'listing', 'materialising', 'failed', ...PAUSED],
  paused_credential_error: ['queued_org', 'listing', 'materialising', 'failed', ...PAUSED],
  paused_destination_credential_error: ['queued_org', 'listing', 'materialising', 'failed', ...PAUSED],
  paused_egress_quota_exhausted: ['queued_org', 'listing', 'materialising', 'failed', ...PAUSED],
  paused_user: ['queued_org', 'listing', 'materialising', 'failed', ...PAUSED],
  // retryFailed re-opens a finished task; a repeating sync task starts its next run (queued_org).
  done: ['materialising', 'queued_org'],
  done_with_errors: ['materialising', 'listing', 'queued_org'],
  failed: ['materialising', 'listing', 'queued_org'],
};

/** True when `from -> to` is a legal move. */
export function canTransition(from: TaskState, to: TaskState): boolean {
  return from !== to && TRANSITIONS[from].includes(to);
}

/** @throws Error naming both states when `from -> to` is not a legal move (a programming error). */
export function assertTransition(from: TaskState, to: TaskState): void {
  if (!canTransition(from, to)) throw new Error(`illegal bucket task transition ${from} -> ${to}`);
}

/** The states from which `to` can be entered (for compare-and-set updates). */
export function statesLeadingTo(to: TaskState): TaskState[] {
  return TASK_STATES.filter((s) => canTransition(s, to));
}

/** Pause reason -> paused state. */
export const PAUSE_STATE = {
  user: 'paused_user',
  credential: 'paused_credential_error',
  destination: 'paused_destination_credential_error',
  credit: 'paused_credit_exhausted',
  egress: 'paused_egress_quota_exhausted',
} as const satisfies Record<string, PausedState>;
export type PauseReason = keyof typeof PAUSE_STATE;

/** The phase a running state stands for (what a later resume returns to). */
export function phaseOf(state: TaskState): TaskPhase {
  if (state === 'listing' || state === 'materialising' || state === 'queued_org') return state;
  return 'queued_org';
}
