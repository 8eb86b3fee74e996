// Generators of pathological inputs for the parse-isolation tests: a DOCX zip bomb (a tiny
// file whose document.xml inflates to hundreds of MB) and a PDF with a huge page count. Both are made
// in memory at test time; nothing is committed.
import zlib from 'node:zlib';

/** Store one ZIP entry (deflated data given) — local header + data; returns [bytes, central record]. */
function zipEntry(name: string, deflated: Buffer, crc: number, size: number, offset: number): [Buffer, Buffer] {
  const n = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0, 6);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(n.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(n.length, 28);
  central.writeUInt32LE(offset, 42);
  return [Buffer.concat([local, n, deflated]), Buffer.concat([central, n])];
}

/** Deflate `head + fill×count + tail` without materialising it; returns the raw deflate stream, CRC and size. */
async function deflateRepeated(head: string, fill: string, count: number, tail: string): Promise<{ data: Buffer; crc: number; size: number }> {
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => deflate.on('end', r));
  const block = Buffer.from(fill.repeat(Math.ceil((1 << 20) / fill.length)).slice(0, 1 << 20));
  let crc = zlib.crc32(head);
  deflate.write(head);
  let size = Buffer.byteLength(head);
  const total = fill.length * count;
  for (let written = 0; written < total; written += block.length) {
    const part = written + block.length <= total ? block : block.subarray(0, total - written);
    crc = zlib.crc32(part, crc);
    size += part.length;
    if (!deflate.write(part)) await new Promise((r) => deflate.once('drain', r));
  }
  crc = zlib.crc32(tail, crc);
  size += Buffer.byteLength(tail);
  deflate.end(tail);
  await done;
  return { data: Buffer.concat(out), crc, size };
}

/** A .docx of well under 1 MB whose word/document.xml inflates to `megabytes` MB of text. */
export async function zipBombDocx(megabytes = 600): Promise<Buffer> {
  const types = '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
  const rels = '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
  const head = '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>';
  const tail = '</w:t></w:r></w:p></w:body></w:document>';
  const small = (s: string) => ({ data: zlib.deflateRawSync(s), crc: zlib.crc32(s), size: Buffer.byteLength(s) });
  const entries: Array<[string, { data: Buffer; crc: number; size: number }]> = [
    ['[Content_Types].xml', small(types)],
    ['_rels/.rels', small(rels)],
    ['word/document.xml', await deflateRepeated(head, 'bomb ', (megabytes * 1024 * 1024) / 5, tail)],
  ];
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, e] of entries) {
    const [local, central] = zipEntry(name, e.data, e.crc, e.size, offset);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A valid PDF with `pages` pages that all draw the same one-line content stream. */
export function manyPagePdf(pages: number): Buffer {
  const objs: string[] = [];
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  objs[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objs[2] = `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`;
  objs[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  const stream = 'BT /F1 12 Tf 72 400 Td (A page of a very long document.) Tj ET';
  objs[4] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  for (let i = 0; i < pages; i++) objs[5 + i] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>';
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let n = 1; n < objs.length; n++) {
    offsets[n] = Buffer.byteLength(out, 'latin1');
    out += `${n} 0 obj\n${objs[n]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objs.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < objs.length; n++) out += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
