// Turns the bytes of a text-like file (TXT, Markdown, HTML) into a JS string. Uploads arrive in every
// encoding a desktop can produce: UTF-8 with or without BOM, UTF-16 from Windows tools, and legacy code
// pages (cp1252, cp866, koi8-r, ...). Order of evidence: BOM, then a declared charset (HTML meta), then
// strict UTF-8 validity, then a guess (chardet candidates plus Cyrillic DOS/Unix code pages that chardet
// does not know, each scored by how natural the decoded text looks). Decoding uses Node's ICU TextDecoder.
import chardet from 'chardet';

/** Result of decoding: the text and the WHATWG encoding label that was used. */
export interface DecodedText {
  text: string;
  encoding: string;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** True when the buffer starts with a UTF-8 or UTF-16 byte-order mark. */
function bomEncoding(data: Buffer): string | null {
  if (data.length >= 3 && UTF8_BOM.every((b, i) => data[i] === b)) return 'utf-8';
  if (data.length >= 2 && data[0] === 0xff && data[1] === 0xfe) return 'utf-16le';
  if (data.length >= 2 && data[0] === 0xfe && data[1] === 0xff) return 'utf-16be';
  return null;
}

/** UTF-16 without BOM: many NUL bytes at odd (LE) or even (BE) offsets in the first KB. */
export function bomlessUtf16(data: Buffer): string | null {
  const n = Math.min(data.length - (data.length % 2), 2048);
  if (n < 4) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (data[i] === 0) evenZero++;
    if (data[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero / pairs > 0.3 && evenZero / pairs < 0.05) return 'utf-16le';
  if (evenZero / pairs > 0.3 && oddZero / pairs < 0.05) return 'utf-16be';
  return null;
}

// Node 20's TextDecoder decodes 'windows-1252' (and its WHATWG aliases latin1/iso-8859-1/ascii) as
// ISO-8859-1, turning 0x80-0x9F into C1 controls instead of €, “, ”, … — so those bytes are mapped here.
const CP1252_ALIASES = new Set(['windows-1252', 'cp1252', 'latin1', 'iso-8859-1', 'iso8859-1', 'ascii', 'us-ascii', 'l1']);
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeCp1252(data: Buffer): string {
  let out = '';
  const CHUNK = 8192;
  for (let start = 0; start < data.length; start += CHUNK) {
    const part = data.subarray(start, start + CHUNK);
    const chars = new Array<string>(part.length);
    for (let i = 0; i < part.length; i++) {
      const b = part[i];
      chars[i] = b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b);
    }
    out += chars.join('');
  }
  return out;
}

function tryDecode(data: Buffer, encoding: string, fatal: boolean): string | null {
  if (CP1252_ALIASES.has(encoding)) return decodeCp1252(data);
  try {
    return new TextDecoder(encoding, { fatal, ignoreBOM: false }).decode(data);
  } catch {
    return null;
  }
}

/**
 * Plausibility of decoded text, higher is better: share of letters, digits, whitespace and ordinary
 * punctuation, minus controls/box-drawing/replacement characters and words with unnatural letter case
 * (a wrong Cyrillic code page yields "оДНАЖДЫ"-like case flips or pseudo-graphics) or mixed scripts.
 */
function plausibility(text: string): number {
  const sample = text.slice(0, 20_000);
  if (!sample) return 0;
  let good = 0;
  let bad = 0;
  for (const ch of sample) {
    if (/[\p{L}\p{N}\s.,;:!?'"()\-«»—–¡¿€]/u.test(ch)) good++;
    else if (/[\p{Cc}\u2500-\u259f\ufffd\u0080-\u009f]/u.test(ch)) bad += 2;
  }
  let oddCase = 0;
  let words = 0;
  for (const w of sample.match(/\p{L}{2,}/gu) ?? []) {
    words++;
    const rest = w.slice(1);
    if (rest !== rest.toLowerCase() && rest !== rest.toUpperCase()) oddCase++;
    // Latin mixed with another script inside one word ("schцne") means a wrong code page.
    else if (/\p{Script=Latin}/u.test(w) && /[^\p{Script=Latin}]/u.test(w)) oddCase++;
  }
  return (good - bad) / sample.length - (words ? oddCase / words : 0);
}

/** Guess a legacy single/multi-byte encoding for bytes that are not valid UTF-8. */
function guessLegacy(data: Buffer): DecodedText {
  const sample = data.subarray(0, 64 * 1024);
  // encoding -> chardet confidence (0..100); used as a small tie-breaker between near-identical pages.
  const candidates = new Map<string, number>();
  for (const m of chardet.analyse(sample).slice(0, 6)) candidates.set(m.name.toLowerCase(), m.confidence);
  for (const extra of ['windows-1252', 'windows-1251', 'ibm866', 'koi8-r']) {
    if (!candidates.has(extra)) candidates.set(extra, 0);
  }
  let best: { enc: string; score: number } | null = null;
  for (const [enc, confidence] of candidates) {
    if (enc.startsWith('utf')) continue;
    const text = tryDecode(sample, enc, false);
    if (text === null) continue;
    const score = plausibility(text) + confidence / 1000;
    if (!best || score > best.score + 1e-9) best = { enc, score };
  }
  const enc = best?.enc ?? 'windows-1252';
  return { text: tryDecode(data, enc, false) ?? data.toString('latin1'), encoding: enc };
}

/**
 * Decode text bytes. `declared` is an encoding named by the document itself (HTML meta charset); it is
 * used when valid for TextDecoder and no BOM contradicts it. Never throws: the worst case is a cp1252
 * reading of the bytes.
 */
export function decodeText(data: Buffer, declared?: string): DecodedText {
  const bom = bomEncoding(data);
  if (bom) return { text: tryDecode(data, bom, false) ?? '', encoding: bom };
  const utf16 = bomlessUtf16(data);
  if (utf16) return { text: tryDecode(data, utf16, false) ?? '', encoding: utf16 };
  if (declared) {
    const label = declared.trim().toLowerCase();
    // A page that declares UTF-8 but is not valid UTF-8 is more often a legacy page mislabelled.
    const strict = tryDecode(data, label, label === 'utf-8' || label === 'utf8');
    if (strict !== null) return { text: strict, encoding: label };
  }
  const utf8 = tryDecode(data, 'utf-8', true);
  if (utf8 !== null) return { text: utf8, encoding: 'utf-8' };
  return guessLegacy(data);
}
