// Credentials at rest: AES-256-GCM round trip, no plaintext in the ciphertext, bound to the task id and
// to the server secret, tamper-evident.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CredentialCipher } from './credentials-cipher.ts';

const secret = 'a'.repeat(40);
const creds = { access_key_id: 'AKIAEXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

test('round trip, fresh IV each time, no plaintext', () => {
  const c = new CredentialCipher(secret);
  const a = c.encrypt(creds, 'task-1');
  const b = c.encrypt(creds, 'task-1');
  assert.notEqual(a, b);
  assert.ok(!a.includes('wJalr') && !Buffer.from(a.split('.')[3], 'base64url').toString('latin1').includes('wJalr'));
  assert.deepEqual(c.decrypt(a, 'task-1'), creds);
});

test('another task id, another server secret or a flipped byte do not decrypt', () => {
  const c = new CredentialCipher(secret);
  const a = c.encrypt(creds, 'task-1');
  assert.throws(() => c.decrypt(a, 'task-2'));
  assert.throws(() => new CredentialCipher('b'.repeat(40)).decrypt(a, 'task-1'));
  const parts = a.split('.');
  const ct = Buffer.from(parts[3], 'base64url');
  ct[0] ^= 1;
  assert.throws(() => c.decrypt([parts[0], parts[1], parts[2], ct.toString('base64url')].join('.'), 'task-1'));
  assert.throws(() => c.decrypt('garbage', 'task-1'), /unknown format/);
});
