// Language identification (DESIGN.md §4) with `eld` (Nito-ELD, 60 languages, ISO 639-1), plus two
// guards it needs in practice: a minimum amount of text (short strings are guesses), and a script rule
// for Chinese/Japanese/Korean, which eld misreads when Latin names are mixed in ("Sky Digital是什么…").

/** What detect() answers: the language of a text, or 'und' when it cannot be told. */
export interface DetectedLanguage {
  /** ISO 639-1 code, or null when detection is unreliable (short or mixed text). */
  code: string | null;
  /** BCP-47 tag to store on documents ('und' when unknown). */
  bcp47: string;
  reliable: boolean;
}

interface EldResult {
  language: string;
  getScores(): Record<string, number>;
  isReliable(): boolean;
}
interface EldDetector {
  detect(text: string): EldResult;
}

let detector: EldDetector | null = null;
let loading: Promise<void> | null = null;

/**
 * Load eld's 'medium' n-gram database (≈0.4 s and ≈150 MB RSS on first call; later calls are free).
 * 'medium' was chosen over 'small'/'extrasmall' for its better accuracy on short text (eld's own
 * benchmark: word pairs 88.4% vs 84.9% for XS) at a one-off cost; 'large' doubles memory for ~1%.
 */
export function loadDetector(): Promise<void> {
  loading ??= import('eld/medium').then((m) => {
    detector = m.eld as EldDetector;
  });
  return loading;
}

/** Minimum weighted letter count for a detection to count; CJK characters weigh 3 (about a word each). */
const MIN_WEIGHTED_LETTERS = 12;
/** Text longer than this is sampled (start, middle, end) before n-gram scoring. */
const SAMPLE_CHARS = 3000;
/** Share of (weighted) letters in a CJK script from which the script decides the language. */
const CJK_SHARE = 0.5;
/** Near-ties (relative score gap below this) are resolved towards the more widely used language. */
const TIE_GAP = 0.005;
/** Rough order of prevalence in written text, used only to break near-ties (e.g. hi vs mr on short Devanagari). */
const PREVALENCE = ['en', 'zh', 'es', 'hi', 'ar', 'fr', 'ru', 'pt', 'de', 'ja', 'id', 'tr', 'it', 'ko', 'fa', 'vi', 'pl', 'uk', 'nl', 'th'];

const UNKNOWN: DetectedLanguage = { code: null, bcp47: 'und', reliable: false };

function sample(text: string): string {
  if (text.length <= SAMPLE_CHARS) return text;
  const part = Math.floor(SAMPLE_CHARS / 3);
  const mid = Math.floor(text.length / 2 - part / 2);
  return `${text.slice(0, part)} ${text.slice(mid, mid + part)} ${text.slice(text.length - part)}`;
}

interface ScriptCounts {
  letters: number; // weighted: CJK characters count 3
  han: number;
  kana: number;
  hangul: number;
}

const LETTER_RE = /\p{L}/gu;
const HAN_RE = /\p{sc=Han}/gu;
const KANA_RE = /[\p{sc=Hiragana}\p{sc=Katakana}]/gu;
const HANGUL_RE = /\p{sc=Hangul}/gu;

function countMatches(re: RegExp, s: string): number {
  let n = 0;
  re.lastIndex = 0;
  while (re.exec(s)) n++;
  return n;
}

function countScripts(s: string): ScriptCounts {
  const all = countMatches(LETTER_RE, s);
  const han = countMatches(HAN_RE, s);
  const kana = countMatches(KANA_RE, s);
  const hangul = countMatches(HANGUL_RE, s);
  return { letters: all + 2 * (han + kana + hangul), han: 3 * han, kana: 3 * kana, hangul: 3 * hangul };
}

function known(code: string): DetectedLanguage {
  return { code, bcp47: code, reliable: true };
}

/**
 * Detect the language of `text` (see analyzer.ts for the contract). Requires loadDetector() to have
 * resolved; throws an Error otherwise, so a missing initialisation cannot silently turn every document
 * into 'und'.
 */
export function detect(text: string): DetectedLanguage {
  if (!detector) throw new Error('language detector not loaded: await initAnalysis() (src/analysis/analyzer.ts) first');
  const s = sample(text);
  const counts = countScripts(s);
  if (counts.letters < MIN_WEIGHTED_LETTERS) return UNKNOWN;
  if (counts.hangul >= CJK_SHARE * counts.letters) return known('ko');
  if (counts.han + counts.kana >= CJK_SHARE * counts.letters) {
    // Japanese writes kana between kanji; Chinese has none. A few kana (quoted names) do not make it ja.
    return known(counts.kana >= 0.1 * (counts.han + counts.kana) ? 'ja' : 'zh');
  }
  if (text.length > VOTE_MIN_CHARS) return voteOverWindows(text);
  const result = detector.detect(s);
  if (!result.language || !result.isReliable()) return UNKNOWN;
  let code = result.language;
  const ranked = Object.entries(result.getScores()).sort((a, b) => b[1] - a[1]);
  if (ranked.length > 1 && ranked[0][0] === code) {
    const [runnerUp, second] = ranked[1];
    const rankOf = (c: string): number => {
      const i = PREVALENCE.indexOf(c);
      return i < 0 ? PREVALENCE.length : i;
    };
    if (second >= ranked[0][1] * (1 - TIE_GAP) && rankOf(runnerUp) < rankOf(code)) code = runnerUp;
  }
  return known(code);
}

/** Texts longer than this are detected by a vote over windows (eld degrades on long, noisy text). */
const VOTE_MIN_CHARS = 600;
/** Characters per window of the vote, and windows sampled. */
const VOTE_WINDOW = 400;
const VOTE_WINDOWS = 15;

/**
 * Long documents: eld's n-gram scores drift on long text mixed with names, e-mail addresses and
 * formulas (measured: tracemonkey.pdf's first 1000 characters detect as Tagalog, unreliable). Detect
 * up to 15 windows of ~400 characters spread over the text and take the majority of the reliable
 * answers; at least 2 votes and 40% of the reliable answers are required.
 */
function voteOverWindows(text: string): DetectedLanguage {
  const votes = new Map<string, number>();
  let reliable = 0;
  const step = Math.max(VOTE_WINDOW, Math.floor(text.length / VOTE_WINDOWS));
  for (let start = 0; start < text.length && reliable < VOTE_WINDOWS * 2; start += step) {
    let from = text.indexOf(' ', start);
    if (from < 0) break;
    from += 1;
    let to = text.lastIndexOf(' ', from + VOTE_WINDOW);
    if (to <= from) to = Math.min(text.length, from + VOTE_WINDOW);
    const piece = text.slice(from, to);
    const r = detect(piece);
    if (!r.code) continue;
    reliable++;
    votes.set(r.code, (votes.get(r.code) ?? 0) + 1);
  }
  const best = [...votes.entries()].sort((a, b) => b[1] - a[1])[0];
  if (!best || best[1] < 2 || best[1] < 0.4 * reliable) return UNKNOWN;
  return known(best[0]);
}
