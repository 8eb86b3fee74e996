// Optional tracing of where OCR spends its time: every tesseract run and every image
// preparation step (decode, scale, render, rotate) runs inside `traced(label, fn)`. Without a tracer
// (the service) that is a plain call; `npm run bench:ocr -- --trace` installs one that records the
// wall time and CPU of each step, so the cost per page is measured rather than guessed.

/** Measures one step; `label` says what it is, e.g. "tesseract eng psm3" or "prep decode". */
export type OcrTracer = <T>(label: string, fn: () => Promise<T>) => Promise<T>;

let tracer: OcrTracer | null = null;

/** Install (or, with null, remove) the tracer of this process. */
export function setOcrTracer(next: OcrTracer | null): void {
  tracer = next;
}

/** Run `fn`, measured by the tracer when one is installed. */
export function traced<T>(label: string, fn: () => Promise<T>): Promise<T> {
  return tracer ? tracer(label, fn) : fn();
}
