// File names of X-Remote-URL ingests (issue 13 §5): taken from the URL only when no Content-Disposition
// names the file, and safe for any path the URL carries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetGuard } from '../internal/net-guard.ts';
import { filenameFromUrl, validateIngestHeaders } from './ingest-request.ts';

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
