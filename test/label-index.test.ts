// The label index of document routing (src/search/label-index.ts) on the real control plane of each backend:
// labels of the visible documents by term, refreshed when a document becomes visible or is deleted, and
// projects over the document bound answered with null (routing then looks at the candidates only).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { nowIso, type ControlPlane } from '../src/storage/db.ts';
import { LabelIndex } from '../src/search/label-index.ts';
import { openTestControlPlane } from './helpers/control-plane.ts';
import { BACKENDS } from './helpers/server.ts';

const row = (projectId: string, docId: string, filename: string, title = '', state: 'visible' | 'deleting' = 'visible') => ({
  project_id: projectId, doc_id: docId, state, title, language: 'en', filename, canonical_url: '', content_type: 'application/pdf',
  pages: 10, chunkset_count: 1, chunk_count: 40, image_count: 0, table_count: 0, ingested_at: nowIso(), source_job_id: `job-${docId}`,
  bm25_state: 'indexed' as const, blob_key: '', size: 1, attributes: '{}', unencrypted_strings: '{}',
});

for (const backend of BACKENDS) {
  describe(`label index (${backend})`, () => {
    let cp: ControlPlane;
    let close: () => Promise<void>;
    before(async () => {
      await initAnalysis();
      ({ cp, close } = await openTestControlPlane(backend, 'label-index-'));
      await cp.db.insertInto('documents').values([
        row('p1', 'mgm22', 'MGMRESORTS_2022Q4_EARNINGS.pdf', 'MGM Exhibit 99.1'),
        row('p1', 'jnj22', 'JOHNSON_JOHNSON_2022_10K.pdf', 'Form 10-K'),
        row('p1', 'gone', 'ACME_2021_10K.pdf', '', 'deleting'),
        row('p1', 'adobe15', 'ADOBE_2015_10K.pdf', 'ADBE 10K FY15'),
        row('p2', 'other', 'MGMRESORTS_2018_10K.pdf'),
      ]).execute();
    });
    after(() => close?.());

    test('terms of the visible documents\' labels, with the pieces of a period compound and initials', async () => {
      const labels = new LabelIndex(cp, 0);
      const set = (await labels.get('p1'))!;
      assert.deepEqual([...set.docs.keys()].sort(), ['adobe15', 'jnj22', 'mgm22'], 'visible documents of the project only');
      const { whole, pieces } = set.terms('en');
      assert.deepEqual(whole.get('2022'), ['jnj22'], 'a whole label word');
      assert.deepEqual(pieces.get('2022'), ['mgm22'], 'a piece of the file name\'s 2022Q4');
      assert.deepEqual(pieces.get('q4'), ['mgm22']);
      assert.ok(whole.get('mgmresorts')?.includes('mgm22') && whole.get('mgm')?.includes('mgm22'));
      assert.equal(whole.get('acme'), undefined, 'a deleting document is not labelled');
      assert.equal(whole.get('fy'), undefined, 'a part of the compound FY15 is no written word');
      assert.deepEqual(pieces.get('fy'), ['adobe15']);
      assert.deepEqual(set.naming('mgm', 'en'), ['mgm22'], 'a word names the label words it begins (MGMRESORTS)');
      assert.deepEqual(set.naming('fy', 'en'), [], 'a piece never names');
      assert.deepEqual(set.initialisms().get('jj'), ['jnj22']);
    });

    test('a document made visible or deleted is seen once the fingerprint changes', async () => {
      const labels = new LabelIndex(cp, 0);
      const first = (await labels.get('p1'))!;
      assert.equal(await labels.get('p1'), first, 'unchanged documents: the same set, not read again');
      await cp.db.insertInto('documents').values(row('p1', 'boeing22', 'BOEING_2022_10K.pdf')).execute();
      const second = (await labels.get('p1'))!;
      assert.notEqual(second, first);
      assert.ok(second.docs.has('boeing22'));
      await cp.db.updateTable('documents').set({ state: 'deleting' }).where('doc_id', '=', 'boeing22').execute();
      assert.ok(!(await labels.get('p1'))!.docs.has('boeing22'));
    });
  });
}
