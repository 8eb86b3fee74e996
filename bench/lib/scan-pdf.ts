// A synthetic multi-page scanned PDF for the OCR benchmark ("a 10-page scan is OCR'd page by
// page"): ../shared/data/docs has only one-page scans, so `npm run bench:ocr -- --multipage` builds a
// PDF whose every page is one picture of the data set (JPEG, painted over the whole page, no text
// layer), as a scanner writes it, and checks that its pages are read side by side.
import sharp from 'sharp';

/** One page: a picture (any format sharp reads) painted on a page `widthIn` inches wide. */
export interface ScanPage { data: Buffer; widthIn: number }

/**
 * PDF bytes with one page per picture, each page exactly the picture's size at its resolution
 * (`widthIn` wide), the picture embedded as a DCT (JPEG, quality 90) image XObject.
 */
export async function scanPdf(pages: ScanPage[]): Promise<Buffer> {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'));
  const n = pages.length;
  // Objects: 1 catalog, 2 page tree, then per page: page, contents, image.
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(`<< /Type /Pages /Count ${n} /Kids [${pages.map((_, i) => `${3 + 3 * i} 0 R`).join(' ')}] >>`);
  for (const [i, p] of pages.entries()) {
    const { data, info } = await sharp(p.data).rotate().flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
    const w = +(p.widthIn * 72).toFixed(2);
    const h = +((p.widthIn * 72 * info.height) / info.width).toFixed(2);
    const content = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`;
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${5 + 3 * i} 0 R >> >> /Contents ${4 + 3 * i} 0 R >>`);
    add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    add(Buffer.concat([
      Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${info.width} /Height ${info.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]));
  }
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.push(offset);
    offset += obj.length;
    parts.push(obj);
  }
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
