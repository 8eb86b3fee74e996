// Loads a BEIR corpus into a real docsearch project for the benchmarks and fitting scripts: every corpus
// entry becomes one Markdown document ("# title" + text) that goes through the ingest pipeline's own
// layers — parseDocument, chunkDocument, the shared analyser, the configured embedder — and is written to
// the namespace index in large batches (one Lance commit per ~1 000 documents instead of one per job),
// then committed as a visible `documents` row exactly as src/ingest/pipeline.ts does. The HTTP/worker path
// is skipped only because 5 000 single-document jobs would measure the job queue, not retrieval.
import crypto from 'node:crypto';
import { detectLanguage } from '../../src/analysis/analyzer.ts';
import { DefinitionCollector, type KeyedDefinition } from '../../src/analysis/abbreviations.ts';
import { insertAbbreviations } from '../../src/storage/abbreviation-store.ts';
import { chunkRows, documentLabel, embeddingText } from '../../src/ingest/chunk-rows.ts';
import { chunkDocument } from '../../src/ingest/chunking/chunker.ts';
import { parseDocument } from '../../src/ingest/parse/index.ts';
import type { Embedder } from '../../src/models/embedder.ts';
import { nowIso, type ControlPlane } from '../../src/storage/db.ts';
import type { ChunkRecord, NamespaceIndex } from '../../src/storage/namespace-index.ts';
import type { Insertable } from 'kysely';
import type { DocumentsTable } from '../../src/storage/schema.ts';
import type { BeirDoc } from './beir.ts';

export interface CorpusTarget {
  cp: ControlPlane;
  index: NamespaceIndex;
  embedder: Embedder;
  projectId: string;
  namespace: string;
}

/**
 * Ingest `docs` (doc_id = the BEIR `_id`) into the project. Returns the number of chunks written.
 * @param batchDocs documents per index write (default 1000)
 */
export async function ingestCorpus(t: CorpusTarget, docs: BeirDoc[], batchDocs = 1000): Promise<number> {
  let chunks = 0;
  for (let i = 0; i < docs.length; i += batchDocs) {
    const part = docs.slice(i, i + batchDocs);
    const rows: ChunkRecord[] = [];
    const docRows: Insertable<DocumentsTable>[] = [];
    const definitions: Array<[string, KeyedDefinition[]]> = [];
    const jobId = `bench-${crypto.randomUUID()}`;
    for (const d of part) {
      const md = `# ${d.title.trim() || d._id}\n\n${d.text}\n`;
      const data = Buffer.from(md, 'utf8');
      const parsed = await parseDocument({ data, filename: `${d._id}.md` });
      const chunked = chunkDocument(parsed);
      const lang = detectLanguage(chunked.chunks.map((c) => c.content).join('\n').slice(0, 20_000));
      const vectors = await t.embedder.embedDocuments(chunked.chunks.map(embeddingText));
      const title = ((parsed.title ?? '').trim() || d._id).slice(0, 500);
      const collector = new DefinitionCollector();
      for (const c of chunked.chunks) collector.add(c);
      definitions.push([d._id, collector.keyed()]);
      rows.push(...chunkRows({ docId: d._id, jobId, chunks: chunked.chunks, vectors, label: documentLabel(title, ''), lang: lang.code }));
      docRows.push({
        project_id: t.projectId, doc_id: d._id, state: 'visible' as const, title,
        language: lang.bcp47, filename: `${d._id}.md`, canonical_url: '', content_type: 'text/markdown', pages: parsed.pages,
        chunkset_count: chunked.chunksetCount, chunk_count: chunked.chunks.length, image_count: chunked.imageCount,
        table_count: chunked.tableCount, ingested_at: nowIso(), source_job_id: jobId, bm25_state: 'pending' as const,
        blob_key: '', size: data.length, attributes: '{}', unencrypted_strings: '{}',
      });
    }
    await t.index.addChunks(t.namespace, rows, t.embedder.signature);
    await t.cp.db.transaction().execute(async (trx) => {
      for (let k = 0; k < docRows.length; k += 200) await trx.insertInto('documents').values(docRows.slice(k, k + 200)).execute();
      for (const [docId, defs] of definitions) await insertAbbreviations(trx, t.projectId, docId, defs);
    });
    chunks += rows.length;
  }
  await t.index.optimize(t.namespace);
  return chunks;
}
