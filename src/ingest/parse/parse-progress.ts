// Where a paged parser (PDF) reports how many of its pages it has read, so an ingest's progress moves while
// a long document is parsed, and the time it spent in its costly sub-stages (tables, figures), so an
// ingest's time can be broken down by stage (docs/jobs.md "Stage times"). One listener and one set of
// times per process: a parse child parses one document at a time and sets/takes them around each
// document (parse-child.ts); with no listener a report costs nothing.

/** Receives pages read so far of the document being parsed. */
export type PageListener = (pagesParsed: number, pagesTotal: number) => void;

let listener: PageListener | undefined;

/** Set (or clear, with undefined) the listener for the document about to be parsed. */
export function setPageListener(fn: PageListener | undefined): void {
  listener = fn;
}

/** Called by a parser after each page it has read (1-based count of pages done, of the document's total). */
export function reportPages(pagesParsed: number, pagesTotal: number): void {
  listener?.(pagesParsed, pagesTotal);
}

/** Sub-stages of a parse whose time a parser reports (ms), apart from reading the text itself. */
export interface ParseSubTimes {
  /** Finding ruled tables and rendering them as Markdown (pdf-tables.ts). */
  tables: number;
  /** Extracting figure images as PNG assets (pdf-images.ts). */
  figures: number;
}

let subTimes: ParseSubTimes = { tables: 0, figures: 0 };

/** Add `ms` milliseconds to a sub-stage of the document being parsed. */
export function addParseTime(stage: keyof ParseSubTimes, ms: number): void {
  subTimes[stage] += ms;
}

/** The sub-stage times recorded since the last call (ms), and reset them for the next document. */
export function takeParseTimes(): ParseSubTimes {
  const t = subTimes;
  subTimes = { tables: 0, figures: 0 };
  return t;
}
