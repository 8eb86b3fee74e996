// Where a paged parser (PDF) reports how many of its pages it has read, so an ingest's progress moves while
// a long document is parsed. One listener per process: a parse child parses one document at a time and
// sets it around each document (parse-child.ts); with no listener a report costs nothing.

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
