// Hand-checked words of the scanned documents in ../shared/data/docs (read off the pictures, not off any
// OCR output), for the OCR benchmark's accuracy proxy: the share of these words a run finds. Latin words
// count when they appear as a whole token (case-insensitive); Chinese/Japanese/Korean entries count when
// the OCR text contains them (spaces ignored), since those scripts are not split into words by spaces.

/** Relative path under ../shared/data/docs -> words or CJK phrases visible in the document. */
export const OCR_TRUTH: Readonly<Record<string, readonly string[]>> = {
  'img/chi_sim_image.jpeg': ['新鲜甘草黄酮养分', '清道夫', '帮助肌肤完美吸收后续营养', '适用人群', '希望美白的皮肤', '宛若新生'],
  'img/english-and-korean.png': [
    'RULES', 'INSTRUCTIONS', 'Template', 'korean', 'English', 'accounts', 'emails', 'OPENING', 'MESSAGE',
    'TREASURE', 'HARUTO', 'successfully', '안녕하세요', '팬입니다', '그룹', '답변을',
  ],
  'img/jpn-vert.jpeg': ['日本語', '漢文', '文字を上から下へ', '行を右から左へ', '横書き', '書体'],
  'img/layout-parser-paper-with-table.jpg': [
    'LayoutParser', 'Unified', 'Toolkit', 'Table', 'Current', 'detection', 'models', 'PubLayNet', 'PRImA',
    'Newspaper', 'TableBank', 'magazines', 'newspapers', 'century', 'scientific', 'business', 'Notes',
  ],
  'img/qr_bill_example.jpg': [
    'Rutschmann', 'Marktgasse', 'Rorschach', 'Schneider', 'Biel', 'Telefon', 'billing', 'activities',
    'Garden', 'Disposal', 'cuttings', 'Individual', 'price', 'amount', 'assignment',
  ],
  'img/table-multi-row-column-cells.png': [
    'Disability', 'Category', 'Participants', 'Ballots', 'Completed', 'Incomplete', 'Terminated', 'Results',
    'Accuracy', 'Time', 'complete', 'Blind', 'Low', 'Vision', 'Dexterity', 'Mobility', 'sec',
  ],
  'img/tika_testOCR.png': ['This', 'file', 'contains', 'some', 'words'],
  'html/example_image_01.png': [
    'PDF', 'PPTX', 'DOCX', 'HTML', 'docling', 'DOC', 'JSON', 'MD', 'Figures', 'Chunking', 'LlamaIndex',
    'LangChain', 'Your', 'GenAI', 'App',
  ],
  'pdf/ocr_test_scanned.pdf': ['Docling', 'bundles', 'PDF', 'document', 'conversion', 'JSON', 'Markdown', 'easy', 'self', 'contained', 'package'],
  'pdf/single_table_image_only.pdf': ['mean', 'chunks', 'per', 'document', 'std', 'tables', 'Base', '128', '256', '512', '64,058', '800.73', 'N/A'],
  'pdf/tika_testOCR_scanned.pdf': ['Happy', 'New', 'Year', '2003'],
};

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

/** Tokens for comparing two OCR texts: Latin/digit words lower-cased, CJK characters one by one. */
export function ocrTokens(text: string): string[] {
  return (text.toLowerCase().match(/[\u3040-\u30ff\u3400-\u9fff]|[\p{L}\p{N}][\p{L}\p{N}.,/%-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? []);
}

/** Share (0..1) of `truth` found in `text` (see the header for the matching rule). */
export function truthRecall(text: string, truth: readonly string[]): number {
  if (!truth.length) return 1;
  const tokens = new Set(ocrTokens(text));
  const compact = text.replace(/\s+/g, '');
  const found = truth.filter((w) => (CJK.test(w) ? compact.includes(w) : tokens.has(w.toLowerCase())));
  return found.length / truth.length;
}

/** Multiset F1 (0..1) of the tokens of `text` against those of `reference`. */
export function tokenF1(text: string, reference: string): number {
  const a = ocrTokens(text);
  const b = ocrTokens(reference);
  if (!a.length && !b.length) return 1;
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  return common ? (2 * common) / (a.length + b.length) : 0;
}
