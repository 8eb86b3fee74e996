// Object selection: globs relative to the prefix, folder placeholders never, bad globs refused; and
// X-Completion parsing (targets, byte limit, SSRF guard, SMTP requirement).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectFilter } from './object-filter.ts';
import { parseCompletionHeader } from './completion.ts';
import { NetGuard } from '../internal/net-guard.ts';

test('globs match the key relative to the prefix', () => {
  const f = objectFilter('docs/', '**/*.{md,pdf}');
  assert.ok(f('docs/a.md'));
  assert.ok(f('docs/x/y/z.pdf'));
  assert.ok(!f('docs/x/y/z.png'));
  assert.ok(!f('other/a.md'), 'outside the prefix');
  assert.ok(!f('docs/x/'), 'folder placeholder');
  assert.ok(!f('docs/.hidden/a.md'), 'dot dirs need an explicit pattern');
  const top = objectFilter('docs/', '*.md');
  assert.ok(top('docs/a.md') && !top('docs/sub/a.md'));
  const all = objectFilter('', undefined);
  assert.ok(all('anything/at/all.bin') && !all('dir/'));
});

test('invalid or oversized globs are validation errors', () => {
  assert.throws(() => objectFilter('', '[abc'), (e: { code?: string }) => e.code === 'validation_failed');
  assert.throws(() => objectFilter('', 'a'.repeat(2000)), (e: { code?: string }) => e.code === 'validation_failed');
});

test('X-Completion: pipe-separated webhooks and e-mail addresses, at most 1024 bytes', () => {
  const net = new NetGuard([]);
  assert.deepEqual(parseCompletionHeader('https://hooks.example.com/a | ops@example.com|https://hooks.example.com/a', net, true), [
    { kind: 'webhook', url: 'https://hooks.example.com/a' }, { kind: 'email', address: 'ops@example.com' },
  ]);
  assert.deepEqual(parseCompletionHeader(undefined, net, false), []);
  const code = (fn: () => unknown) => { try { fn(); return 'ok'; } catch (e) { return (e as { code: string }).code; } };
  assert.equal(code(() => parseCompletionHeader('ops@example.com', net, false)), 'invalid_header');
  assert.equal(code(() => parseCompletionHeader('https://x.example.com/' + 'a'.repeat(1010), net, true)), 'invalid_header');
  assert.equal(code(() => parseCompletionHeader('http://127.0.0.1/hook', net, true)), 'remote_url_forbidden');
  assert.equal(code(() => parseCompletionHeader('ftp://example.com/x', net, true)), 'invalid_header');
});
