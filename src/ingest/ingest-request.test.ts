// File names of X-Remote-URL ingests: taken from the URL only when no Content-Disposition
// names the file, and safe for any path the URL carries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetGuard } from '../internal/net-guard.ts';
import { cleanFilename, filenameFromDisposition, filenameFromUrl, validateIngestHeaders } from './ingest-request.ts';

test('filenameFromUrl: last segment decoded; malformed escapes kept; host when the path is empty', () => {
  assert.equal(filenameFromUrl(new URL('https://example.org/raw/notes%20v2.md?x=1')), 'notes v2.md');
  assert.equal(filenameFromUrl(new URL('https://example.org/a/b%zz.md')), 'b%zz.md');
  assert.equal(filenameFromUrl(new URL('https://example.org/a/x%2F..%2Fy.md')), 'y.md');
  assert.equal(filenameFromUrl(new URL('https://example.org/')), 'example.org');
});

test('validateIngestHeaders marks whether the name came from the URL', async () => {
  const net = new NetGuard([]);
  try {
    const fromUrl = validateIngestHeaders({ remoteUrl: 'https://example.org/download?id=7' }, net, 1000);
    assert.deepEqual([fromUrl.filename, fromUrl.filenameFromUrl], ['download', true]);
    const named = validateIngestHeaders({ remoteUrl: 'https://example.org/download', contentDisposition: 'attachment; filename="r.pdf"' }, net, 1000);
    assert.deepEqual([named.filename, named.filenameFromUrl], ['r.pdf', false]);
    // A malformed escape in the URL path is a name, not a crash.
    assert.equal(validateIngestHeaders({ remoteUrl: 'https://example.org/%E0%A4%A.md' }, net, 1000).filename, '%E0%A4%A.md');
  } finally {
    await net.close();
  }
});

test('cleanFilename drops terminal escapes, controls and bidi overrides, keeps other Unicode', () => {
  assert.equal(cleanFilename('a\u0000b\u001b[1;31mc\u001b]0;title\u0007d\u202egpj.exe'), 'abcdgpj.exe');
  assert.equal(cleanFilename('\u200fnotes\u2066 v2\u2069.md\u0085'), 'notes v2.md');
  assert.equal(cleanFilename('Ærøskøbing 报告 📄.pdf'), 'Ærøskøbing 报告 📄.pdf');
  assert.equal(cleanFilename('\u202e\u0000'), '');
  assert.equal(filenameFromDisposition("attachment; filename*=UTF-8''a%1B%5B2Jb.md"), 'ab.md');
  assert.equal(filenameFromUrl(new URL('https://example.org/x%E2%80%AEdm.exe')), 'xdm.exe');
});
