// JSON parser. Retrieval works on words, so JSON is rendered as "key path: value" lines rather than as
// one fenced blob: each line carries its full context (`orders[2].customer.name: Ada Lovelace`), which
// both the lexical and the vector index can match, and the chunker may cut between lines. Structure:
// an object or array member that is itself a container opens a section headed by its key path (levels
// 1–3, deeper paths stay in the lines); the scalar members of a container are one paragraph of
// `path: value` lines; an array of flat objects (every value a scalar) is a GFM table with the union of
// their keys as the header; an array of scalars is one `path: a, b, c` line. JSON Lines (one value per
// line) is read as an array. Title: a top-level string member named title or name, else the filename.
import { decodeText } from './decode-text.ts';
import { gfmTable } from './markdown-blocks.ts';
import type { Block, ParsedDocument } from './types.ts';
import { ParseError } from './types.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Keys nested deeper than this are not headings (every deep value would otherwise open a section). */
const MAX_HEADING_DEPTH = 3;
/** Values longer than this are cut (a base64 blob inside JSON is not text to search). */
const MAX_VALUE_CHARS = 2000;

const isScalar = (v: Json): v is null | boolean | number | string => v === null || typeof v !== 'object';

function scalarText(v: null | boolean | number | string): string {
  const s = v === null ? 'null' : String(v);
  return s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS)}…` : s;
}

function keyPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const safe = /^[\p{L}_$][\p{L}\p{N}_$-]*$/u.test(key) ? key : JSON.stringify(key);
  return base ? `${base}.${safe}` : safe;
}

function flatObjects(arr: Json[]): arr is Array<{ [k: string]: Json }> {
  return arr.length >= 2 && arr.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isScalar));
}

function render(value: Json, path: string, depth: number, out: Block[]): void {
  if (isScalar(value)) {
    out.push({ kind: 'paragraph', text: `${path || 'value'}: ${scalarText(value)}`, page: 1 });
    return;
  }
  if (Array.isArray(value)) {
    if (value.every(isScalar)) {
      out.push({ kind: 'paragraph', text: `${path || 'values'}: ${value.map((v) => scalarText(v as null | string)).join(', ')}`, page: 1 });
      return;
    }
    if (flatObjects(value)) {
      const keys = [...new Set(value.flatMap((o) => Object.keys(o)))];
      const rows = value.map((o) => keys.map((k) => (k in o ? scalarText(o[k] as null | string) : '')));
      const headed = out.at(-1)?.kind === 'heading' && out.at(-1)?.text === path;
      if (path && !headed) out.push({ kind: 'paragraph', text: `${path}:`, page: 1 });
      out.push({ kind: 'table', text: gfmTable(keys, rows), page: 1 });
      return;
    }
  }
  const entries: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const lines = entries.filter(([, v]) => isScalar(v)).map(([k, v]) => `${keyPath(path, k)}: ${scalarText(v as null | string)}`);
  const scalarArrays = entries.filter(([, v]) => Array.isArray(v) && v.length > 0 && v.every(isScalar));
  for (const [k, v] of scalarArrays) lines.push(`${keyPath(path, k)}: ${(v as Json[]).map((x) => scalarText(x as null | string)).join(', ')}`);
  if (lines.length) out.push({ kind: 'paragraph', text: lines.join('\n'), page: 1 });
  for (const [k, v] of entries) {
    if (isScalar(v) || scalarArrays.some(([key]) => key === k)) continue;
    const childPath = keyPath(path, k);
    if (depth < MAX_HEADING_DEPTH) out.push({ kind: 'heading', text: childPath, level: depth + 1, page: 1 });
    render(v, childPath, depth + 1, out);
  }
}

/** JSON or JSON Lines text -> value. Throws ParseError 415 when neither parses. */
export function readJson(text: string): Json {
  const body = text.replace(/^\uFEFF/, '').trim();
  try {
    return JSON.parse(body) as Json;
  } catch (err) {
    const lines = body.split(/\r?\n/).filter((l) => l.trim());
    if (lines.length > 1) {
      try {
        return lines.map((l) => JSON.parse(l) as Json);
      } catch {
        // fall through to the original error
      }
    }
    throw new ParseError(415, 'unreadable_document', `The file is not valid JSON: ${(err as Error).message}`);
  }
}

/** Parse a .json file into key-path blocks (see the header comment for the mapping). */
export async function parseJson(data: Buffer): Promise<ParsedDocument> {
  const value = readJson(decodeText(data).text);
  const blocks: Block[] = [];
  render(value, '', 0, blocks);
  let title: string | undefined;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const t = value.title ?? value.name;
    if (typeof t === 'string' && t.trim() && t.length <= 200) title = t.replace(/\s+/g, ' ').trim();
  }
  return { title, pages: 1, blocks, images: [] };
}
