// Building blocks of lexical analysis (DESIGN.md §4): cutting long text into pieces that
// Intl.Segmenter handles in linear time, accent folding limited to scripts where marks are accents,
// and the character-bigram treatment of Chinese/Japanese runs and Korean words.

/** Longest piece handed to Intl.Segmenter at once (it is superlinear on long strings). */
export const MAX_PIECE = 2000;

/** True for whitespace and the CJK sentence/clause punctuation that is a safe place to cut text. */
function isCutPoint(code: number): boolean {
  return (
    code <= 0x20 ||
    code === 0xa0 ||
    code === 0x3000 || // ideographic space
    code === 0x3001 || // 、
    code === 0x3002 || // 。
    code === 0xff0c || // ，
    code === 0xff01 || // ！
    code === 0xff1f || // ？
    code === 0xff1b || // ；
    code === 0xff1a || // ：
    code === 0x2028 ||
    code === 0x2029
  );
}

/**
 * Split `text` into consecutive pieces of at most `max` UTF-16 units, cutting at the last whitespace (or
 * CJK punctuation) in the second half of the window; a window without one is cut hard, never inside a
 * surrogate pair. Deterministic, so ingest and query cut the same text the same way.
 */
export function splitPieces(text: string, max = MAX_PIECE): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    let cut = -1;
    for (let i = start + max; i > start + (max >> 1); i--) {
      if (isCutPoint(text.charCodeAt(i))) {
        cut = i;
        break;
      }
    }
    if (cut < 0) {
      cut = start + max;
      const c = text.charCodeAt(cut);
      if (c >= 0xdc00 && c <= 0xdfff) cut--; // do not separate a low surrogate from its high surrogate
    }
    out.push(text.slice(start, cut));
    start = cut;
  }
  out.push(text.slice(start));
  return out;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const HAS_LGC = /[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}]/u;
const LGC_MARKS = /([\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}])\p{M}+/gu;
/** Letters that carry no decomposition but that ASCII folding maps anyway (as Lucene's ASCIIFoldingFilter). */
const SPECIAL_FOLD: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŀ: 'l',
  ĸ: 'k',
  ς: 'σ', // Greek final sigma
  '\u2019': "'", // right single quotation mark used as apostrophe
};
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL_FOLD).join('')}]`, 'gu');

/**
 * Accent folding for lowercased tokens: decompose, drop combining marks that follow a Latin, Greek or
 * Cyrillic base letter, map the few undecomposable letters (ß, æ, ø, ł, ...), recompose. Marks on any
 * other script (Devanagari vowel signs, Thai tone marks, Arabic harakat) are kept untouched.
 */
export function foldAccents(token: string): string {
  if (ASCII_ONLY.test(token) || !HAS_LGC.test(token)) return token;
  const stripped = token.normalize('NFD').replace(LGC_MARKS, '$1');
  return stripped.replace(SPECIAL_RE, (c) => SPECIAL_FOLD[c] ?? c).normalize('NFC');
}

/** Map the typographic apostrophe to ASCII so Snowball's possessive rules see it. */
export function normaliseApostrophe(token: string): string {
  return token.indexOf('\u2019') >= 0 ? token.replaceAll('\u2019', "'") : token;
}

const HAS_HAN_KANA = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const HAS_HANGUL = /\p{sc=Hangul}/u;

export type SegmentKind = 'cjk' | 'hangul' | 'word';

/** Which treatment a word-like segment gets: Chinese/Japanese run, Korean word, or ordinary word. */
export function segmentKind(segment: string): SegmentKind {
  const c = segment.charCodeAt(0);
  if (c < 0x1100) return 'word'; // fast path: Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic...
  if (HAS_HAN_KANA.test(segment)) return 'cjk';
  if (HAS_HANGUL.test(segment)) return 'hangul';
  return 'word';
}

/**
 * Append the overlapping character bigrams of `chars` (code points) to `out`; a single character is
 * emitted as a unigram so one-character words stay searchable.
 */
export function pushBigrams(chars: string[], out: string[]): void {
  if (chars.length === 1) {
    out.push(chars[0]);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}
