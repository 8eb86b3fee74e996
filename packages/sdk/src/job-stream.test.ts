// The status stream's payload normalisation: error as an object passes through; error as a string
// (with error_code) becomes the same {code, message} shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toJobStatusEvent } from './job-stream.ts';

test('job_status payloads: error object kept, error string + error_code normalised', () => {
  const base = { job_id: 'j', status: 'failed', code: 422, is_terminal: true } as const;
  assert.deepEqual(toJobStatusEvent({ ...base, error: { code: 'encrypted_document', message: 'locked' } }).error, { code: 'encrypted_document', message: 'locked' });
  const fromString = toJobStatusEvent({ ...base, error: 'locked', error_code: 'encrypted_document' });
  assert.deepEqual(fromString.error, { code: 'encrypted_document', message: 'locked' });
  assert.ok(!('error_code' in fromString));
  assert.deepEqual(toJobStatusEvent({ ...base, error: 'x' }).error, { code: 'job_failed', message: 'x' });
  assert.equal(toJobStatusEvent({ job_id: 'j', status: 'done', code: 200, is_terminal: true, doc_id: 'd' }).doc_id, 'd');
});
