// Per-document parse limits shared by the parsers and the isolation runner. The runner (parse-runner.ts)
// sets them in its child process from the service configuration; direct callers (unit tests, tools)
// get the defaults. Exceeding a count limit fails the job with 413 document_too_large; the runner's
// time and memory bounds give 422 parse_timeout / 413 document_too_large.

export interface ParseLimits {
  /** Pages a PDF may have (checked before any page is read). Default 2,000. */
  maxPages: number;
  /** Pages without a text layer that are OCR'd per document; further scanned pages are skipped. Default 200. */
  maxOcrPages: number;
  /** OCR switch (DOCSEARCH_OCR=off turns it off). Default on. */
  ocr: boolean;
  /** Figures extracted per document. Default 200. */
  maxImages: number;
  /**
   * Bytes a ZIP-based document (DOCX, XLSX, PPTX, OpenDocument, EPUB) may declare as its unpacked size.
   * The runner sets half the parse memory bound (inflated XML needs about twice its size as a string,
   * more as a DOM, so a bigger package would only end at that bound, later). Default 1 GiB.
   */
  maxInflatedBytes: number;
  /**
   * Tesseract processes one parse may run at once (pages of a document, candidate languages). The
   * parse runner sets its pool size; default 2 (the worker's default concurrency).
   */
  ocrConcurrency: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxPages: 2000, maxOcrPages: 200, ocr: true, maxImages: 200, maxInflatedBytes: 2 ** 30, ocrConcurrency: 2 };

let current: ParseLimits = { ...DEFAULT_PARSE_LIMITS };

/** Limits in force in this process. */
export function parseLimits(): ParseLimits {
  return current;
}

/** Replace some limits (the runner calls this in its child before parsing). */
export function setParseLimits(next: Partial<ParseLimits>): void {
  current = { ...current, ...next };
}
