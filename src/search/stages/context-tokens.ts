// Token counts the budget and the response need, without re-tokenising what was counted before
// (re-tokenising the rendered context and every document header was 18 % of a filled search's CPU).
// Document headers: their estimate depends only on the document's id and title, so it is counted once per
// document and kept in a bounded cache. Chunk bodies use the counts stored at ingest (hit-content.ts), and
// so does the exact count of the rendered context (contextTokens).
import { countTokens, PIECE } from '../../analysis/token-count.ts';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import type { ContextPiece } from './render.ts';

/** Documents whose header estimate is kept (about 100 bytes each); the cache is cleared when full. */
export const HEADER_CACHE_SIZE = 50_000;

/**
 * The header estimate of one document: countTokens() of its `<doc>` line with a one-page span and its
 * `</doc>` line. Counted by segments between cuts (segmentTokens, exact under the same checks as
 * contextTokens): the words of titles recur across documents, so a document seen for the first time costs
 * a memo lookup per title word and one short BPE call for its id, not a BPE pass over the whole line
 * (first sight of a document was ≈ 0.3 ms of a filled search at 100k chunks, profiled).
 */
export function headerTokens(doc: { doc_id: string; title: string }): number {
  const text = `<doc id="${doc.doc_id}" title="${doc.title}" pages="1-1">\n</doc>\n`;
  return cutsAreExact(text) ? segmentTokens(text) : countTokens(text);
}

/** headerTokens() per (doc_id, title), computed once; a renamed document is a new key. */
export class HeaderTokenCache {
  private readonly entries = new Map<string, number>();

  /** @param size most entries kept before the cache is cleared (default HEADER_CACHE_SIZE) */
  constructor(private readonly size = HEADER_CACHE_SIZE) {}

  /** Estimated tokens of the document's header (exactly headerTokens(doc)). */
  get(doc: { doc_id: string; title: string }): number {
    const key = `${doc.doc_id}\u0000${doc.title}`;
    let n = this.entries.get(key);
    if (n === undefined) {
      n = headerTokens(doc);
      if (this.entries.size >= this.size) this.entries.clear();
      this.entries.set(key, n);
    }
    return n;
  }
}

/** Longest stretch without a word boundary for which contextTokens() uses stored counts (< PIECE). */
const MAX_GAP = PIECE - 64;
/** Whitespace other than space, tab, CR and LF (countTokens cuts only after those; see below). */
const ODD_SPACE = /[^\S \t\r\n]/;

/**
 * Exactly countTokens() of the context rendered from `pieces`, re-tokenising only its markup, headers and
 * the first and last word of each chunk: re-tokenising the whole context measured ≈16 % of a
 * filled search's busy main-thread time.
 *
 * Why it is exact. A space preceded by a non-whitespace character is a pre-token boundary of o200k_base in
 * any text (only its whitespace patterns span a space, and they need whitespace before it), so counts add
 * up across such "cuts". A chunk body B shown verbatim splits at its first cut h and last cut t into
 * head + middle + tail, and tokens(middle) = token_count(B) − tokens(head) − tokens(tail), token_count
 * being countTokens(B) as stored at ingest (chunking/chunker.ts). The rest of the context (markup, headers,
 * heads, tails, bodies not shown verbatim) lies between middles, i.e. between cuts, and is counted as is.
 * countTokens() itself encodes PIECE-character pieces cut at the last space after a char other than
 * space/tab/CR/LF, which is a true boundary unless that char is other whitespace (U+00A0 …) and exists
 * unless a stretch has no cut at all; a context with such whitespace or such a stretch, or longer than
 * countTokens' exact range, is counted whole.
 * @param pieces    renderPieces() of the response
 * @param untrusted chunks whose token_count is not countTokens(content) (cut copies of a too-large hit)
 * @param context   the pieces joined, when the caller has it already
 * @returns countTokens(pieces joined)
 */
export function contextTokens(pieces: ContextPiece[], untrusted: ReadonlySet<StoredChunk> = new Set(), context = pieces.map((p) => p.text).join('')): number {
  if (!cutsAreExact(context)) return countTokens(context);
  let total = 0;
  let glue = '';
  for (const p of pieces) {
    const body = p.chunk && !untrusted.has(p.chunk) ? p.text : null;
    const h = body === null ? -1 : nextCut(body, 1);
    const t = body === null ? -1 : lastCut(body);
    if (body === null || h < 0 || t <= h) {
      glue += p.text;
      continue;
    }
    const head = body.slice(0, h);
    const tail = body.slice(t);
    total += segmentTokens(glue + head) + p.chunk!.token_count - segmentTokens(head) - segmentTokens(tail);
    glue = tail;
  }
  return total + segmentTokens(glue);
}

/**
 * True when countTokens(text) is the sum of the counts of its segments between cuts (see contextTokens):
 * no whitespace other than space/tab/CR/LF, no stretch without a cut longer than MAX_GAP, and within
 * countTokens' exact range. O(text length).
 */
function cutsAreExact(text: string): boolean {
  return text.length <= 200_000 && !ODD_SPACE.test(text) && longestStretch(text) <= MAX_GAP;
}

/** Longest segment (text between two cuts) whose count is remembered, and how many are kept. */
const SEGMENT_MEMO_CHARS = 64;
const SEGMENT_MEMO_SIZE = 100_000;
const segmentMemo = new Map<string, number>();

/**
 * countTokens(text) for text between chunk middles (markup, document headers, chunk edges), summed over
 * its segments between cuts, each segment's count remembered. Exact for the same reason as contextTokens:
 * a cut is a pre-token boundary, so counts add up across cuts; the caller has checked that the context has
 * no odd whitespace and no stretch without a cut longer than MAX_GAP. Segments are word-sized (` title="…`,
 * `</doc>\n<doc`, a chunk's first word) and recur across searches, so most counts are a Map lookup instead
 * of a BPE call (these calls were ≈ 1.3 ms of a filled search). Bounded: cleared when full.
 */
function segmentTokens(text: string): number {
  let total = 0;
  let start = 0;
  for (let cut = nextCut(text, 1); cut >= 0; cut = nextCut(text, cut + 1)) {
    total += memoCount(text.slice(start, cut));
    start = cut;
  }
  return total + memoCount(text.slice(start));
}

function memoCount(segment: string): number {
  if (segment.length > SEGMENT_MEMO_CHARS) return countTokens(segment);
  let n = segmentMemo.get(segment);
  if (n === undefined) {
    n = countTokens(segment);
    if (segmentMemo.size >= SEGMENT_MEMO_SIZE) segmentMemo.clear();
    segmentMemo.set(segment, n);
  }
  return n;
}

/** First cut (a space after a non-whitespace character) at or after `from`, or -1. */
function nextCut(text: string, from: number): number {
  for (let i = text.indexOf(' ', Math.max(1, from)); i >= 0; i = text.indexOf(' ', i + 1)) if (!isSpace(text.charCodeAt(i - 1))) return i;
  return -1;
}

/** Last cut of `text` (position > 0), or -1. */
function lastCut(text: string): number {
  for (let i = text.lastIndexOf(' '); i > 0; i = text.lastIndexOf(' ', i - 1)) if (!isSpace(text.charCodeAt(i - 1))) return i;
  return -1;
}

/** Longest distance between consecutive cuts (and the text's ends). */
function longestStretch(text: string): number {
  let longest = 0;
  let prev = 0;
  for (let i = nextCut(text, 1); i >= 0; i = nextCut(text, i + 1)) {
    longest = Math.max(longest, i - prev);
    prev = i;
  }
  return Math.max(longest, text.length - prev);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * The pieces with as many section-heading lines (render.ts, `heading` pieces) as fit: headings are shown
 * on top of the budget the hits were admitted and widened within, so when the context with all of them
 * passes its limit, heading lines are dropped from the last one back until it does not. The limit is
 * `target`, or `max` when the content alone already passes `target` (a lone hit larger than the
 * target): the budget has left the target for that content, and its section
 * headings are what says where the content comes from. Content is never dropped for a heading.
 * @param pieces    renderPieces() of the response
 * @param untrusted as for contextTokens
 * @param target    the request's token target (after clamping to max_tokens)
 * @param max       the request's max_tokens (default `target`)
 * @returns the pieces kept, their concatenation (the context) and exactly countTokens() of it
 */
export function fitHeadings(pieces: ContextPiece[], untrusted: ReadonlySet<StoredChunk>, target: number, max = target): { pieces: ContextPiece[]; context: string; tokens: number } {
  const measured = (ps: ContextPiece[]) => {
    const context = ps.map((p) => p.text).join('');
    return { pieces: ps, context, tokens: contextTokens(ps, untrusted, context) };
  };
  const all = measured(pieces);
  if (all.tokens <= target) return all;
  const headings = pieces.filter((p) => p.heading);
  if (headings.length === 0) return all;
  const bare = measured(pieces.filter((p) => !p.heading));
  const limit = max > target && bare.tokens > target ? max : target;
  if (all.tokens <= limit) return all;
  // Drop from the end by each line's own count, then confirm exactly (counts need not add up at joins);
  // with every line dropped the context is its content alone, whatever its size.
  let keep = headings.length;
  let over = all.tokens - limit;
  while (keep > 0 && over > 0) over -= memoCount(headings[--keep].text);
  for (;;) {
    if (keep === 0) return bare;
    const kept = new Set(headings.slice(0, keep));
    const out = measured(pieces.filter((p) => !p.heading || kept.has(p)));
    if (out.tokens <= limit) return out;
    keep--;
  }
}
