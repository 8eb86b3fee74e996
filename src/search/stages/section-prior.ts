// Bibliographies are dense in exactly the words a query about a paper's topic uses (cited titles), so
// BM25 ranks a paper's reference list above its abstract, and the lexical anchor (anchor.ts) then favours
// whatever resembles that list. For RAG a reference list is almost never the answer. This module tells
// bibliography chunks apart — by the section heading the parser found (heading_path), or, for documents
// without headings, by content that opens with a numbered citation entry and continues with more — so
// that they cannot be the lexical anchor and their score carries a prior (score.ts BIBLIOGRAPHY_PRIOR).
import type { StoredChunk } from '../../storage/namespace-index.ts';
import type { Region } from '../types.ts';

/**
 * Section headings of reference lists (optionally numbered, e.g. "11. References"), in the languages the
 * analyser stems plus CJK and Russian; matched against the innermost heading of a chunk.
 */
const BIBLIOGRAPHY_HEADING = new RegExp(
  '^(?:[0-9ivxIVX]+(?:\\.[0-9]+)*\\.?\\s+)?(?:' +
    [
      'references?', 'bibliography', 'works cited', 'literature cited', 'cited literature', 'references and notes', 'notes and references',
      'literatur', 'literaturverzeichnis', 'quellenverzeichnis', 'références', 'références bibliographiques', 'bibliographie',
      'referencias', 'referencias bibliográficas', 'bibliografía', 'referências', 'referências bibliográficas', 'bibliografia',
      'riferimenti bibliografici', 'literatuur', 'literatuurlijst', 'litteratur', 'kaynaklar', 'kaynakça',
      '参考文献', '引用文献', '참고문헌', '참고 문헌', 'список литературы', 'литература', 'библиография',
    ].join('|') +
    ')\\s*:?$',
  'iu',
);

/** A numbered citation entry ("[12] A. Author …") at the start of a line or after a sentence. */
const CITATION_ENTRY = /(?:^|\n|[.)]\s)\s*\[\d{1,3}\]\s+\S/g;
const YEAR = /\b(?:1[89]|20)\d{2}\b/g;

/**
 * True when the chunk belongs to a reference list: its innermost heading names one, or its text starts
 * with a numbered citation entry and holds at least 3 entries and 2 years. A row that stores the flag
 * (computed by this function at ingest, ingest/chunk-rows.ts) is answered from it without its text.
 */
export function isBibliographyChunk(chunk: Pick<StoredChunk, 'heading_path' | 'content' | 'bibliography'>): boolean {
  if (chunk.bibliography !== undefined) return chunk.bibliography;
  const innermost = chunk.heading_path.split(' > ').pop()?.trim() ?? '';
  if (innermost && BIBLIOGRAPHY_HEADING.test(innermost)) return true;
  const text = chunk.content.trimStart();
  if (!/^\[\d{1,3}\]\s/.test(text)) return false;
  return (text.match(CITATION_ENTRY)?.length ?? 0) >= 3 && (text.match(YEAR)?.length ?? 0) >= 2;
}

/** True when every retrieved chunk of the region is part of a reference list. */
export function isBibliographyRegion(r: Pick<Region, 'members'>): boolean {
  return r.members.length > 0 && r.members.every((m) => isBibliographyChunk(m.chunk));
}
