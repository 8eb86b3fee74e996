// Unit tests of key generation, classification and hashing (keys.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { classifyToken, displayPrefix, generateKey, hashesEqual, hashToken, newNamespace } from './keys.ts';

test('generated keys carry the product prefix and 256 random bits, stored as sha256 hex', () => {
  const acc = generateKey('account');
  const ds = generateKey('project', 'docsearch');
  const alt = generateKey('project', 'altproduct');
  assert.match(acc.token, /^svc_acc_[A-Za-z0-9_-]{43}$/);
  assert.match(ds.token, /^svc_prod_ds_[A-Za-z0-9_-]{43}$/);
  assert.match(alt.token, /^svc_prod_alt_[A-Za-z0-9_-]{43}$/);
  assert.equal(Buffer.from(ds.token.slice('svc_prod_ds_'.length), 'base64url').length, 32);
  assert.equal(ds.hash, crypto.createHash('sha256').update(ds.token).digest('hex'));
  assert.match(ds.hash, /^[0-9a-f]{64}$/);
  assert.equal(ds.displayPrefix, ds.token.slice(0, 'svc_prod_ds_'.length + 4));
  const many = new Set(Array.from({ length: 1000 }, () => generateKey('account').token));
  assert.equal(many.size, 1000);
});

test('classifyToken recognises prefixes, JWT shape and rejects the rest', () => {
  assert.equal(classifyToken(generateKey('account').token), 'account');
  assert.equal(classifyToken(generateKey('project', 'docsearch').token), 'project_docsearch');
  assert.equal(classifyToken(generateKey('project', 'altproduct').token), 'project_altproduct');
  assert.equal(classifyToken('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'), 'jwt');
  for (const bad of ['', 'garbage', 'svc_acc_', 'svc_acc_short', 'svc_prod_ds_has space here!!!!!!', 'svc_prod_xx_' + 'a'.repeat(43), 'a.b', 'a.b.c.d']) {
    assert.equal(classifyToken(bad), 'unknown', bad);
  }
  // a key of another product is never taken for a docsearch project key (the quick prefix check)
  assert.ok(!generateKey('project', 'altproduct').token.startsWith('svc_prod_ds_'));
});

test('hashesEqual compares in constant time and handles length mismatch', () => {
  const h = hashToken('svc_acc_abc');
  assert.ok(hashesEqual(h, hashToken('svc_acc_abc')));
  assert.ok(!hashesEqual(h, hashToken('svc_acc_abd')));
  assert.ok(!hashesEqual(h, h.slice(1)));
  assert.equal(displayPrefix('garbage'), 'garb');
});

test('namespaces are ns_ + 32 hex', () => {
  assert.match(newNamespace(), /^ns_[0-9a-f]{32}$/);
  assert.notEqual(newNamespace(), newNamespace());
});
