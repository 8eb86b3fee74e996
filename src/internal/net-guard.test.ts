// The SSRF guard refuses private, loopback, link-local and metadata targets (literal, after DNS, and on
// redirects) unless the operator allows them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import dns from 'node:dns';
import { NetGuard } from './net-guard.ts';

test('literal private and special addresses are refused', () => {
  const g = new NetGuard([]);
  for (const u of ['http://127.0.0.1/', 'http://10.1.2.3/', 'http://192.168.0.1/', 'http://172.16.0.1/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://localhost/', 'http://metadata.google.internal/']) {
    assert.throws(() => g.checkUrl(u), (e: { code?: string }) => e.code === 'remote_url_forbidden', u);
  }
  for (const u of ['ftp://example.org/x', 'file:///etc/passwd', 'not a url', 'http://user:pw@example.org/']) {
    assert.throws(() => g.checkUrl(u), (e: { code?: string }) => e.code === 'invalid_remote_url', u);
  }
  assert.equal(g.checkUrl('https://93.184.216.34/x').hostname, '93.184.216.34');
});

test('IPv6: only global unicast outside special ranges; IPv4-compatible, NAT64, 6to4, Teredo… are refused', () => {
  const g = new NetGuard([]);
  const refused = [
    'http://[::127.0.0.1]/', 'http://[::a9fe:a9fe]/', 'http://[::10.0.0.1]/', 'http://[::8.8.8.8]/', // IPv4-compatible ::/96
    'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b:1::1]/', // NAT64
    'http://[2002:7f00:1::]/', 'http://[2002:c0a8:101::1]/', 'http://[2002:808:808::1]/', // 6to4 (any embedded IPv4)
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', // Teredo
    'http://[2001:db8::1]/', 'http://[2001:2::1]/', 'http://[2001:10::1]/', // documentation, benchmarking, ORCHID
    'http://[fc00::1]/', 'http://[fd12:3456::1]/', 'http://[fe80::1]/', 'http://[fec0::1]/', 'http://[ff02::1]/',
    'http://[::]/', 'http://[::1]/', 'http://[100::1]/', 'http://[::ffff:0:a9fe:a9fe]/', 'http://[::ffff:169.254.169.254]/',
    'http://[4000::1]/', 'http://[1::1]/',
  ];
  for (const u of refused) {
    assert.throws(() => g.checkUrl(u), (e: { code?: string }) => e.code === 'remote_url_forbidden', u);
  }
  for (const a of ['::127.0.0.1', '::a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a00:1::1']) assert.ok(!g.addressAllowed(a), a);
  for (const u of ['http://[2606:4700:4700::1111]/', 'http://[2a00:1450:4001:80b::200e]/', 'http://[::ffff:8.8.8.8]/']) {
    assert.ok(g.checkUrl(u), u);
  }
  assert.ok(g.addressAllowed('2606:4700:4700::1111'));
  assert.ok(new NetGuard(['fd00::/8']).addressAllowed('fd00::5'), 'an operator-allowed IPv6 range still works');
});

test('allow-list by host and CIDR', () => {
  const g = new NetGuard(['127.0.0.1', '10.0.0.0/8']);
  assert.ok(g.addressAllowed('127.0.0.1'));
  assert.ok(g.addressAllowed('10.9.9.9'));
  assert.ok(!g.addressAllowed('192.168.1.1'));
});

test('a name resolving to loopback is refused at connect time; a redirect hop to a private host is refused', async () => {
  const srv = http.createServer((req, res) => {
    if (req.url === '/redirect') { res.writeHead(302, { location: 'http://10.0.0.1/secret' }); res.end(); return; }
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  try {
    // os.hostname() resolves to 127.0.0.1 through /etc/hosts: the DNS-time check must catch it.
    const name = os.hostname();
    const resolved = await dns.promises.lookup(name).catch(() => undefined);
    if (resolved && resolved.address.startsWith('127.')) {
      await assert.rejects(new NetGuard([]).fetch(`http://${name}:${port}/`), (e: { code?: string }) => e.code === 'remote_url_forbidden');
    }
    const allowed = new NetGuard(['127.0.0.1']);
    assert.equal((await allowed.fetch(`http://127.0.0.1:${port}/`)).statusCode, 200);
    await assert.rejects(allowed.fetch(`http://127.0.0.1:${port}/redirect`), (e: { code?: string }) => e.code === 'remote_url_forbidden');
  } finally {
    srv.close();
  }
});
