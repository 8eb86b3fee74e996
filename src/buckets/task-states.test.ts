// The bucket task state machine: the spec's transitions are allowed, nothing else is; paused states
// return to their phase; terminal states only re-open through retryFailed or a sync task's next run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TASK_STATES, canTransition, assertTransition, statesLeadingTo, isActive, isTerminal, phaseOf, PAUSE_STATE } from './task-states.ts';

test('the spec table is allowed', () => {
  for (const [a, b] of [['created', 'queued_org'], ['queued_org', 'listing'], ['listing', 'materialising'], ['materialising', 'done'],
    ['materialising', 'done_with_errors'], ['materialising', 'failed'], ['listing', 'done_with_errors']] as const) {
    assert.ok(canTransition(a, b), `${a} -> ${b}`);
  }
  assert.equal(TASK_STATES.length, 12);
});

test('illegal moves are refused', () => {
  for (const [a, b] of [['created', 'listing'], ['listing', 'done'], ['queued_org', 'materialising'], ['done', 'failed'], ['failed', 'done'], ['done', 'paused_user'], ['listing', 'listing']] as const) {
    assert.ok(!canTransition(a, b), `${a} -> ${b}`);
    assert.throws(() => assertTransition(a, b), /illegal bucket task transition/);
  }
});

test('paused states resume to any phase and can be cancelled; terminal states are inactive', () => {
  for (const p of Object.values(PAUSE_STATE)) {
    for (const phase of ['queued_org', 'listing', 'materialising'] as const) assert.ok(canTransition(p, phase));
    assert.ok(canTransition(p, 'failed'));
    assert.ok(isActive(p));
  }
  for (const t of ['done', 'done_with_errors', 'failed']) { assert.ok(isTerminal(t)); assert.ok(!isActive(t)); }
  assert.deepEqual(statesLeadingTo('listing').sort(), ['done_with_errors', 'failed', 'paused_credential_error', 'paused_credit_exhausted', 'paused_destination_credential_error', 'paused_egress_quota_exhausted', 'paused_user', 'queued_org'].sort());
  for (const t of ['done', 'done_with_errors', 'failed'] as const) assert.ok(canTransition(t, 'queued_org'), `${t} -> queued_org (next sync run)`);
  assert.equal(phaseOf('materialising'), 'materialising');
  assert.equal(phaseOf('created'), 'queued_org');
});
