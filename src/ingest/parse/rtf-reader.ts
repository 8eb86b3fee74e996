// RTF interpreter: rtf-stream-parser's Tokenize splits the bytes into groups, control words and text;
// this module keeps the group state RTF needs (destination, \uc skip count, current font) and emits
// paragraphs. Text bytes and \'hh escapes are decoded with iconv-lite in the code page of the current
// font's \fcharset (Shift-JIS for 128, cp1250 for 238, ...) or \cpg, else the document's \ansicpg, else
// cp1252 — so Japanese and Czech documents come out without mojibake; \uN gives the code point
// directly and skips its \ucN fallback characters. Skipped: font/colour/style/list tables (read for
// charsets and heading style names), headers/footers, field instructions, ignorable \* destinations.
// Kept: \info\title, \nofpages, \outlinelevel and "heading N" styles (headings), \listtext/\pntext
// (list markers), table rows (\cell/\row), pictures (\pngblip/\jpegblip/\emfblip/\wmetafile -> bytes).
import iconv from 'iconv-lite';
import { Tokenize } from 'rtf-stream-parser';
import type { Token } from 'rtf-stream-parser/dist/src/tokenize.js';

export interface RtfParagraph {
  text: string;
  page: number;
  /** 1..6 for headings (outline level + 1, or a "heading N" / "Title" style). */
  heading?: number;
  /** List marker text ("-", "1."), set when the paragraph had a \listtext or \pntext. */
  list?: string;
  /** Set on a table paragraph: all rows of the table (the text is empty). */
  rows?: string[][];
  /** Set on an image paragraph: the picture's index in `images`. */
  image?: number;
}

export interface RtfDocument {
  title?: string;
  /** \nofpages from \info, when the producer wrote it. */
  pages?: number;
  paragraphs: RtfParagraph[];
  images: Array<{ data: Buffer; mediaType: string }>;
}

/** \fcharset -> Windows code page (RTF 1.9.1 spec, \fcharset table). */
const CHARSET_CP: Record<number, number> = {
  0: 1252, 77: 10000, 128: 932, 129: 949, 130: 1361, 134: 936, 136: 950, 161: 1253, 162: 1254, 163: 1258,
  177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250, 254: 437, 255: 850,
};

const SKIP_DESTINATIONS = new Set([
  'fonttbl', 'colortbl', 'stylesheet', 'info', 'listtable', 'listoverridetable', 'revtbl', 'rsidtbl', 'generator',
  'xmlnstbl', 'mmathPr', 'themedata', 'colorschememapping', 'datastore', 'latentstyles', 'pgdsctbl', 'header',
  'headerl', 'headerr', 'headerf', 'footer', 'footerl', 'footerr', 'footerf', 'fldinst', 'objdata', 'nonshppict',
  'filetbl', 'private', 'xe', 'tc', 'txe', 'pict', 'listtext', 'pntext', 'title', 'nofpages', 'author', 'operator',
  'keywords', 'subject', 'comment', 'doccomm', 'company', 'category', 'manager', 'hlinkbase', 'userprops', 'bkmkstart', 'bkmkend',
]);

const SYMBOLS: Record<string, string> = {
  emdash: '\u2014', endash: '\u2013', bullet: '\u2022', lquote: '\u2018', rquote: '\u2019', ldblquote: '\u201c',
  rdblquote: '\u201d', emspace: ' ', enspace: ' ', qmspace: ' ', '~': '\u00a0', _: '\u2011', tab: '\t', line: '\n',
  '{': '{', '}': '}', '\\': '\\',
};

interface GroupState {
  dest: string;
  uc: number;
  font: number | undefined;
}

function decoderName(cp: number): string {
  if (cp === 10000) return 'macintosh';
  return iconv.encodingExists(`cp${cp}`) ? `cp${cp}` : 'cp1252';
}

/** Read RTF bytes. Never throws for odd content; the tokenizer's own errors propagate. */
export function readRtf(data: Buffer): RtfDocument {
  const tokens: Token[] = [];
  const tokenizer = new Tokenize();
  tokenizer.push = (t: Token | null) => {
    if (t) tokens.push(t);
    return true;
  };
  tokenizer._transform(data, 'buffer', (err?: unknown) => { if (err) throw err; });
  tokenizer._flush(() => undefined);

  const doc: RtfDocument = { paragraphs: [], images: [] };
  const fonts = new Map<number, number>(); // font -> code page
  const styles = new Map<number, string>();
  let ansiCp = 1252;
  let deff: number | undefined;
  let page = 1;
  let state: GroupState = { dest: 'body', uc: 1, font: undefined };
  const stack: GroupState[] = [];
  let skip = 0; // fallback characters still to drop after \u
  let pending: number[] = [];
  let pendingCp = 1252;
  let text = '';
  let para: { outline?: number; style?: number; intbl: boolean; list?: string } = { intbl: false };
  let cell = '';
  let row: string[] = [];
  let rows: string[][] = [];
  let scratch = ''; // text of the current capture destination (font name, style name, title, listtext)
  let styleId: number | undefined;
  let pict: { hex: string; type?: string; bin?: Buffer } | undefined;

  const cpOf = (font: number | undefined) => {
    const f = font ?? deff;
    return (f !== undefined ? fonts.get(f) : undefined) ?? ansiCp;
  };
  const out = (s: string) => {
    if (state.dest === 'body') text += s;
    else scratch += s;
  };
  const flushBytes = () => {
    if (!pending.length) return;
    if (pendingCp !== 42) out(iconv.decode(Buffer.from(pending), decoderName(pendingCp))); // 42: symbol font
    pending = [];
  };
  const addByte = (b: number) => {
    if (skip > 0) { skip--; return; }
    const cp = cpOf(state.font);
    if (cp !== pendingCp) { flushBytes(); pendingCp = cp; }
    pending.push(b);
  };
  const flushTable = () => {
    if (row.length) { rows.push(row); row = []; }
    if (rows.length) doc.paragraphs.push({ text: '', page, rows });
    rows = [];
  };
  const endParagraph = () => {
    flushBytes();
    if (para.intbl) { cell += ` ${text}`; text = ''; return; }
    flushTable();
    const clean = text.replace(/[ \t\u00a0]+\n/g, '\n').trim();
    const styleName = para.style !== undefined ? styles.get(para.style) ?? '' : '';
    const styleLevel = /^heading\s*(\d)/i.exec(styleName)?.[1] ?? (/^title$/i.test(styleName) ? '1' : undefined);
    const heading = para.outline !== undefined && para.outline < 6 ? para.outline + 1 : styleLevel ? Number(styleLevel) : undefined;
    if (clean) doc.paragraphs.push({ text: clean, page, heading, list: para.list });
    text = '';
    para.list = undefined;
  };

  for (const t of tokens) {
    if (t.type === 0 /* GROUP_START */) {
      flushBytes();
      stack.push(state);
      state = { ...state };
      if (state.dest === 'pict') state.dest = 'skip'; // \picprop and friends inside a picture
      if (state.dest === 'stylesheet') { styleId = 0; scratch = ''; }
      continue;
    }
    if (t.type === 1 /* GROUP_END */) {
      flushBytes();
      const closing = state;
      state = stack.pop() ?? { dest: 'body', uc: 1, font: undefined };
      if (closing.dest === state.dest) continue;
      if (closing.dest === 'title') doc.title = scratch.trim() || undefined;
      else if (closing.dest === 'listtext' && state.dest === 'body') {
        const m = /^\s*(\(?[0-9a-zA-Z]{1,4}[.)])/.exec(scratch);
        para.list = m ? m[1] : '-';
      } else if (closing.dest === 'pict' && pict) {
        const bytes = pict.bin ?? Buffer.from(pict.hex.replace(/[^0-9a-fA-F]/g, ''), 'hex');
        if (pict.type && bytes.length) {
          doc.images.push({ data: bytes, mediaType: pict.type });
          endParagraph();
          doc.paragraphs.push({ text: '', page, image: doc.images.length - 1 });
        }
        pict = undefined;
      }
      if (closing.dest === 'stylesheet-entry' && styleId !== undefined) styles.set(styleId, scratch.replace(/;\s*$/, '').trim());
      scratch = '';
      continue;
    }
    if (t.type === 3 /* TEXT */) {
      if (state.dest === 'skip') continue;
      if (state.dest === 'pict') { pict!.hex += t.data.toString('latin1'); continue; }
      for (const b of t.data) if (b !== 0x0d && b !== 0x0a) addByte(b);
      continue;
    }
    // CONTROL
    const word = t.word;
    const param = t.param;
    if (word === "'") {
      if (state.dest === 'skip' || state.dest === 'pict') continue;
      addByte(t.data![0]);
      continue;
    }
    if (word === 'bin') {
      if (state.dest === 'pict' && pict) pict.bin = t.data;
      continue;
    }
    flushBytes();
    if (word === 'u' && param !== undefined) {
      if (state.dest !== 'skip') out(String.fromCodePoint(param < 0 ? param + 65536 : param));
      skip = state.uc;
      continue;
    }
    skip = 0;
    if (word === '*') { state.dest = state.dest === 'body' ? 'ignorable' : state.dest; continue; }
    if (state.dest === 'ignorable') {
      state.dest = word === 'shppict' ? 'body' : word === 'listtext' || word === 'pntext' ? 'listtext' : 'skip';
      if (word === 'pict') { state.dest = 'pict'; pict = { hex: '' }; }
      continue;
    }
    if (state.dest === 'skip') continue;
    if (word === 'fonttbl') { state.dest = 'fonttbl'; continue; }
    if (word === 'stylesheet') { state.dest = 'stylesheet'; continue; }
    if (state.dest === 'fonttbl') {
      if (word === 'f') state.font = param;
      else if ((word === 'fcharset' || word === 'cpg') && state.font !== undefined && param !== undefined) {
        fonts.set(state.font, word === 'fcharset' ? (param === 2 ? 42 : param === 0 ? ansiCp : CHARSET_CP[param] ?? ansiCp) : param);
      }
      continue;
    }
    if (state.dest === 'stylesheet' || state.dest === 'stylesheet-entry') {
      if (word === 's' || word === 'cs' || word === 'ds' || word === 'ts') { state.dest = 'stylesheet-entry'; styleId = word === 's' ? param : undefined; }
      continue;
    }
    if (word === 'info') { state.dest = 'info'; continue; }
    if (state.dest === 'info') {
      if (word === 'title') { state.dest = 'title'; scratch = ''; }
      else if (word === 'nofpages' && param) doc.pages = param;
      continue;
    }
    if (word === 'pict') { state.dest = 'pict'; pict = { hex: '' }; continue; }
    if (state.dest === 'pict') {
      if (word === 'pngblip') pict!.type = 'image/png';
      else if (word === 'jpegblip') pict!.type = 'image/jpeg';
      else if (word === 'emfblip') pict!.type = 'image/x-emf';
      else if (word === 'wmetafile') pict!.type = 'image/x-wmf';
      continue;
    }
    if (word === 'listtext' || word === 'pntext') { state.dest = 'listtext'; scratch = ''; continue; }
    if (state.dest === 'listtext' || state.dest === 'title') {
      if (word in SYMBOLS) out(SYMBOLS[word]);
      continue;
    }
    if (SKIP_DESTINATIONS.has(word)) { state.dest = 'skip'; continue; }
    switch (word) {
      case 'ansicpg': if (param) ansiCp = param; break;
      case 'deff': deff = param; break;
      case 'uc': state.uc = param ?? 1; break;
      case 'f': state.font = param; break;
      case 'par': endParagraph(); break;
      case 'pard': para = { intbl: false, list: para.list }; break;
      case 'intbl': para.intbl = true; break;
      case 'outlinelevel': para.outline = param; break;
      case 's': para.style = param; break;
      case 'cell': case 'nestcell': flushBytes(); cell += ` ${text}`; text = ''; row.push(cell.replace(/\s+/g, ' ').trim()); cell = ''; break;
      case 'row': case 'nestrow': if (row.length) rows.push(row); row = []; break;
      case 'page': endParagraph(); page++; break;
      default:
        if (word in SYMBOLS) out(SYMBOLS[word]);
    }
  }
  endParagraph();
  flushTable();
  return doc;
}
