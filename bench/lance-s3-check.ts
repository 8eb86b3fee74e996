// Ad-hoc check that the LanceDB namespace index works on an S3-protocol store (moto_server / MinIO).
// Run: S3_ENDPOINT=http://127.0.0.1:45123 npx tsx bench/lance-s3-check.ts s3://bucket/prefix
import { openLanceIndex } from '../src/storage/lance-index.ts';

const uri = process.argv[2] ?? 's3://lance/docsearch';
const storageOptions = {
  endpoint: process.env.S3_ENDPOINT ?? 'http://127.0.0.1:45123',
  region: 'us-east-1',
  access_key_id: process.env.AWS_ACCESS_KEY_ID ?? 'x',
  secret_access_key: process.env.AWS_SECRET_ACCESS_KEY ?? 'x',
  allow_http: 'true',
};
const sig = { provider: 'p', model: 'm', dimension: 4 };
const row = (doc: string, i: number, tokens: string) => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
  heading_path: '', content: tokens, tokens, token_count: 1, vector: new Float32Array([1, i, 0, 0]),
});
const a = await openLanceIndex({ uri, storageOptions });
await a.addChunks('ns_s3', [row('a', 0, 'alpha beta'), row('a', 1, 'gamma')], sig);
await a.addChunks('ns_s3', [row('b', 0, 'beta delta')], sig);
const b = await openLanceIndex({ uri, storageOptions }); // a second "process" reading the same tables
console.log('count', await b.countChunks('ns_s3'), 'signature', await b.getSignature('ns_s3'));
console.log('bm25', (await b.bm25Search('ns_s3', ['beta'], 5)).map((h) => [h.chunk.id, h.score.toFixed(3)]));
await a.addChunks('ns_s3', [row('c', 0, 'beta beta')], sig);
console.log('after write on a, b sees', await b.countChunks('ns_s3'), (await b.vectorSearch('ns_s3', new Float32Array([1, 0, 0, 0]), 2, { excludeDocIds: ['a'] })).map((h) => h.chunk.id));
await a.optimize('ns_s3');
console.log('deleted', await a.deleteDocument('ns_s3', 'a'), 'b count', await b.countChunks('ns_s3'));
await a.addChunks('ns_s3', [row('d', 0, 'x')], { ...sig, model: 'other' }).catch((e) => console.log('mismatch:', e.code, e.message));
await a.dropNamespace('ns_s3');
console.log('after drop b count', await b.countChunks('ns_s3'));
await a.close(); await b.close();
