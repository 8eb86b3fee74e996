// Stage 8 of retrieval: the prompt-ready context block (DESIGN.md §5, documented in docs/context-grammar.md):
//   <context>
//   <doc id="DOC_ID" title="TITLE" pages="3-5">
//   ## Section > Subsection
//   [p3] markdown of the first region ...
//   [...]
//   [p5] markdown of a later, non-adjacent region
//   </doc>
//   </context>
// Documents in rank order (of their best hit); regions in document order; a `## ` line with the section
// headings (the chunk's heading_path without an outermost heading equal to the document title) wherever
// they change, since chunk content never repeats its headings (chunking/chunker.ts); `[pN]` where content from page
// N starts; `[...]` between non-adjacent regions; attribute values XML-escaped; an empty result is
// `<context></context>`. Markdown content is kept verbatim except that tag-like `<context`, `</context`,
// `<doc`, `</doc` inside it get their `<` escaped, so document text cannot close or forge the envelope.
import type { StoredChunk } from '../../storage/namespace-index.ts';

/** One admitted hit as rendered: its document and its chunks (ordered by chunk_index). */
export interface RenderHit {
  docId: string;
  title: string;
  chunks: StoredChunk[];
}

/** Escape a value for a double-quoted XML attribute (also newlines and tabs, which XML would normalise). */
export function escapeXmlAttr(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;')
    // Characters XML 1.0 forbids anywhere.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

/** Neutralise envelope tags inside content: `</doc>` becomes `&lt;/doc>`; other markdown is untouched. */
export function neutraliseEnvelope(content: string): string {
  return content.replace(/<(\/?)(context|doc)(?=[\s>/]|$)/gi, '&lt;$1$2');
}

/** "3" for one page, "3-5" for a span. */
export function pageSpan(chunks: StoredChunk[]): string {
  const lo = Math.min(...chunks.map((c) => c.page_start));
  const hi = Math.max(...chunks.map((c) => Math.max(c.page_start, c.page_end)));
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}

/**
 * One piece of a rendered context, in order (the context is their concatenation). A piece carrying
 * `chunk` is that chunk's content exactly as stored (no trim or escape changed it), which lets
 * context-tokens.ts count it from the chunk's stored token_count.
 */
export interface ContextPiece {
  text: string;
  chunk?: StoredChunk;
  /** A section-heading line: extra to the planned budget, dropped when the context would not fit (search-service.ts). */
  heading?: true;
}

/**
 * The heading line shown before a chunk: its heading path without an outermost heading equal to the
 * document title (case-insensitive), as `## A > B`; '' when nothing is left. Newlines in headings become
 * spaces and envelope tags are neutralised, so a heading can neither end the line nor forge the envelope.
 */
export function headingLine(headingPath: string, title: string): string {
  const parts = headingPath.split(' > ').map((x) => x.replace(/\s+/g, ' ').trim()).filter(Boolean);
  if (parts.length && parts[0].toLowerCase() === title.replace(/\s+/g, ' ').trim().toLowerCase()) parts.shift();
  return parts.length ? neutraliseEnvelope(`## ${parts.join(' > ')}\n`) : '';
}

/**
 * The pieces of one document's body: its chunks in document order with heading lines, page markers and gap
 * markers. A heading line is shown where a chunk's headings differ from the last shown in the document.
 */
function docBodyPieces(chunks: StoredChunk[], out: ContextPiece[], title = ''): void {
  const sorted = [...new Map(chunks.map((c) => [c.chunk_index, c])).values()].sort((a, b) => a.chunk_index - b.chunk_index);
  let prev: StoredChunk | null = null;
  let page = -1;
  let shownHeading = '';
  for (const c of sorted) {
    const gap = prev !== null && c.chunk_index !== prev.chunk_index + 1;
    if (prev !== null) out.push({ text: '\n\n' });
    if (gap) out.push({ text: '[...]\n\n' });
    const heading = headingLine(c.heading_path ?? '', title);
    if (heading && heading !== shownHeading) out.push({ text: heading, heading: true });
    if (heading) shownHeading = heading;
    const text = neutraliseEnvelope(c.content.trim());
    if (prev === null || gap || c.page_start !== page) out.push({ text: `[p${c.page_start}] ` });
    out.push(text === c.content ? { text, chunk: c } : { text });
    page = Math.max(c.page_start, c.page_end);
    prev = c;
  }
}

/** Render the body of one document: its chunks in document order with page markers and gap markers. */
export function renderDocBody(chunks: StoredChunk[]): string {
  const out: ContextPiece[] = [];
  docBodyPieces(chunks, out);
  return out.map((p) => p.text).join('');
}

/**
 * The prompt-ready context as pieces (renderContext() joins them).
 * @param hits admitted hits in rank order (several hits may share a document)
 */
export function renderPieces(hits: RenderHit[]): ContextPiece[] {
  if (hits.length === 0) return [{ text: '<context></context>' }];
  const docs = new Map<string, { title: string; chunks: StoredChunk[] }>();
  for (const h of hits) {
    const d = docs.get(h.docId);
    if (d) d.chunks.push(...h.chunks);
    else docs.set(h.docId, { title: h.title, chunks: [...h.chunks] });
  }
  const out: ContextPiece[] = [{ text: '<context>\n' }];
  for (const [docId, d] of docs) {
    if (d.chunks.length === 0) continue;
    out.push({ text: `<doc id="${escapeXmlAttr(docId)}" title="${escapeXmlAttr(d.title)}" pages="${pageSpan(d.chunks)}">\n` });
    docBodyPieces(d.chunks, out, d.title);
    out.push({ text: '\n</doc>\n' });
  }
  out.push({ text: '</context>' });
  return out;
}

/**
 * Render the prompt-ready context.
 * @param hits admitted hits in rank order (several hits may share a document)
 * @returns the context string; `<context></context>` when `hits` is empty
 */
export function renderContext(hits: RenderHit[]): string {
  return renderPieces(hits).map((p) => p.text).join('');
}
