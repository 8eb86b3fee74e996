// Cheap identification of ZIP-based and OLE-based office containers for detectFormat, without
// inflating anything: the ZIP central directory lists every entry name (so a PPTX is told from a DOCX
// by `ppt/presentation.xml`), and OpenDocument / EPUB packages carry a `mimetype` entry that their
// specifications require to be stored uncompressed. Legacy and password-protected Office files are OLE
// compound files (CFB); an encrypted OOXML package is a CFB holding an `EncryptedPackage` stream.

/** ZIP local file header signature PK\x03\x04. */
export function isZip(data: Buffer): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

/** OLE compound file (D0 CF 11 E0 A1 B1 1A E1): .doc/.xls/.ppt, or an encrypted OOXML package. */
export function isCfb(data: Buffer): boolean {
  const sig = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
  return data.length >= 8 && sig.every((b, i) => data[i] === b);
}

/** True when a CFB holds an OOXML `EncryptedPackage` stream (a password-protected DOCX/XLSX/PPTX). */
export function isEncryptedOoxml(data: Buffer): boolean {
  return isCfb(data) && data.includes(Buffer.from('EncryptedPackage', 'utf16le'));
}

/** One central-directory record: entry name and its declared uncompressed size, bytes. */
export interface ZipEntryInfo { name: string; size: number }

/**
 * Entries of the ZIP central directory (ZIP64 not supported: returns null), or null when the
 * end-of-central-directory record is missing or inconsistent (truncated upload).
 */
export function readZipDirectory(data: Buffer): ZipEntryInfo[] | null {
  if (!isZip(data) || data.length < 22) return null;
  // EOCD: signature PK\x05\x06, up to 65535 bytes of comment after it.
  const floor = Math.max(0, data.length - 22 - 65535);
  let eocd = -1;
  for (let i = data.length - 22; i >= floor; i--) {
    if (data[i] === 0x50 && data[i + 1] === 0x4b && data[i + 2] === 0x05 && data[i + 3] === 0x06) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = data.readUInt16LE(eocd + 10);
  let offset = data.readUInt32LE(eocd + 16);
  if (offset === 0xffffffff || offset >= data.length) return null;
  const entries: ZipEntryInfo[] = [];
  for (let n = 0; n < count; n++) {
    if (offset + 46 > data.length || data.readUInt32LE(offset) !== 0x02014b50) return null;
    const nameLen = data.readUInt16LE(offset + 28);
    const extraLen = data.readUInt16LE(offset + 30);
    const commentLen = data.readUInt16LE(offset + 32);
    entries.push({ name: data.toString('utf8', offset + 46, offset + 46 + nameLen), size: data.readUInt32LE(offset + 24) });
    offset += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Entry names from the ZIP central directory, or null (see readZipDirectory). */
export function listZipEntries(data: Buffer): string[] | null {
  return readZipDirectory(data)?.map((e) => e.name) ?? null;
}

/**
 * Sum of the declared uncompressed sizes of a ZIP's entries, bytes (0 when the directory cannot be
 * read). A zip bomb declares what it inflates to; jszip checks each entry's inflated length against
 * its declaration, so a lying header fails that check (or the parse child's memory bound) instead.
 */
export function zipInflatedBytes(data: Buffer): number {
  return (readZipDirectory(data) ?? []).reduce((s, e) => s + e.size, 0);
}

/**
 * Content of a stored (uncompressed) `mimetype` entry at the very start of the ZIP, as OpenDocument and
 * EPUB require; undefined when the package does not follow that rule.
 */
export function storedMimetype(data: Buffer): string | undefined {
  if (!isZip(data) || data.length < 38) return undefined;
  const method = data.readUInt16LE(8);
  const size = data.readUInt32LE(18);
  const nameLen = data.readUInt16LE(26);
  const extraLen = data.readUInt16LE(28);
  if (method !== 0 || nameLen !== 8 || data.toString('latin1', 30, 38) !== 'mimetype' || size > 200) return undefined;
  const start = 30 + nameLen + extraLen;
  return data.toString('latin1', start, start + size).trim() || undefined;
}

export type ZipFormat = 'docx' | 'pptx' | 'xlsx' | 'odt' | 'ods' | 'odp' | 'epub';

const ODF_MIMETYPES: Record<string, ZipFormat> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.text-template': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.presentation-template': 'odp',
  'application/epub+zip': 'epub',
};

/**
 * Which office/e-book format a ZIP package is, from its entry names and stored mimetype; `claimed`
 * (the extension's format) breaks ties for packages that omit the mimetype entry. Null: not a ZIP or
 * a ZIP of none of these formats.
 */
export function sniffZipFormat(data: Buffer, claimed?: string): ZipFormat | null {
  if (!isZip(data)) return null;
  const mime = storedMimetype(data);
  if (mime && ODF_MIMETYPES[mime]) return ODF_MIMETYPES[mime];
  const entries = listZipEntries(data);
  if (!entries) {
    // Truncated central directory: fall back to the local headers' names near the start.
    const head = data.subarray(0, 64 * 1024);
    if (head.includes('word/', 0, 'latin1')) return 'docx';
    if (head.includes('ppt/', 0, 'latin1')) return 'pptx';
    if (head.includes('xl/', 0, 'latin1')) return 'xlsx';
    return null;
  }
  const has = (name: string) => entries.includes(name);
  if (has('word/document.xml')) return 'docx';
  if (has('ppt/presentation.xml')) return 'pptx';
  if (has('xl/workbook.xml')) return 'xlsx';
  if (has('META-INF/container.xml') && entries.some((e) => e.endsWith('.opf'))) return 'epub';
  if (has('content.xml') && has('META-INF/manifest.xml')) {
    // An OpenDocument package whose mimetype entry is compressed or missing: trust the extension.
    if (claimed === 'odt' || claimed === 'ods' || claimed === 'odp') return claimed;
    return null;
  }
  // Other Word-processing packages that still hold word/ parts (e.g. .docm-like naming).
  if (entries.some((e) => e.startsWith('word/'))) return 'docx';
  return null;
}
