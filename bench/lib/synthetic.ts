// A synthetic but realistic namespace for the latency benchmark: documents whose chunks are made of real
// sentences (drawn with a seeded PRNG from the SciFact abstracts), with SciFact titles, sections
// (chunksets) and the chunk sizes the chunker produces (≈150–250 tokens). Chunks are analysed, embedded and
// written exactly as ingest writes them; each document gets a visible control-plane row.
import { analyze } from '../../src/analysis/analyzer.ts';
import { countTokens } from '../../src/analysis/token-count.ts';
import { nowIso } from '../../src/storage/db.ts';
import type { ChunkRecord } from '../../src/storage/namespace-index.ts';
import { withSearchLayout } from '../../src/ingest/chunk-rows.ts';
import { loadBeir } from './beir.ts';
import type { CorpusTarget } from './corpus.ts';

export { rng } from './random.ts';
import { rng } from './random.ts';

export interface SyntheticOptions {
  docs: number;
  chunksPerDoc: number;
  chunksPerSection: number;
  seed?: number;
  /** Progress callback (chunks written so far). */
  onProgress?: (written: number) => void;
}

/**
 * Write `docs × chunksPerDoc` chunks into the target namespace (batches of ≈10k rows) and one visible
 * document row per document. Returns the number of chunks written. Does not optimise the table.
 */
export async function writeSyntheticCorpus(t: CorpusTarget, o: SyntheticOptions): Promise<number> {
  const { corpus } = loadBeir('scifact', 'test');
  const sentences = corpus.flatMap((d) => d.text.split(/(?<=[.!?])\s+/)).filter((s) => s.length > 30);
  const titles = corpus.map((d) => d.title);
  const rand = rng(o.seed ?? 42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const docsPerBatch = Math.max(1, Math.floor(10_000 / o.chunksPerDoc));
  let written = 0;
  for (let d0 = 0; d0 < o.docs; d0 += docsPerBatch) {
    const rows: ChunkRecord[] = [];
    const docRows = [];
    for (let d = d0; d < Math.min(o.docs, d0 + docsPerBatch); d++) {
      const docId = `syn-${String(d).padStart(6, '0')}`;
      const title = pick(titles);
      const texts: string[] = [];
      const drafts: Array<Omit<ChunkRecord, 'tokens' | 'vector' | 'token_count'>> = [];
      for (let c = 0; c < o.chunksPerDoc; c++) {
        const section = Math.floor(c / o.chunksPerSection);
        const heading = `${title} > Section ${section + 1}`;
        const n = 5 + Math.floor(rand() * 4);
        const content = Array.from({ length: n }, () => pick(sentences)).join(' ');
        texts.push(`${heading}\n${content}`);
        drafts.push({ id: `${docId}:${c}`, doc_id: docId, source_job_id: 'bench-synthetic', chunk_index: c, chunkset_index: section, page_start: 1 + Math.floor(c / 3), page_end: 1 + Math.floor(c / 3), heading_path: heading, content });
      }
      const vectors = await t.embedder.embedDocuments(texts);
      rows.push(...withSearchLayout(drafts.map((dr, k) => ({ ...dr, tokens: analyze(texts[k], 'en').join(' '), token_count: countTokens(dr.content), vector: vectors[k] })), 'en'));
      docRows.push({
        project_id: t.projectId, doc_id: docId, state: 'visible' as const, title, language: 'en', filename: `${docId}.md`,
        canonical_url: '', content_type: 'text/markdown', pages: 1 + Math.floor((o.chunksPerDoc - 1) / 3),
        chunkset_count: Math.ceil(o.chunksPerDoc / o.chunksPerSection), chunk_count: o.chunksPerDoc, image_count: 0, table_count: 0,
        ingested_at: nowIso(), source_job_id: 'bench-synthetic', bm25_state: 'indexed' as const, blob_key: '', size: 0,
        attributes: '{}', unencrypted_strings: '{}',
      });
    }
    await t.index.addChunks(t.namespace, rows, t.embedder.signature);
    for (let k = 0; k < docRows.length; k += 200) await t.cp.db.insertInto('documents').values(docRows.slice(k, k + 200)).execute();
    written += rows.length;
    o.onProgress?.(written);
  }
  return written;
}
