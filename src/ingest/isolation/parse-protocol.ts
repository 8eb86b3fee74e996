// The messages between the parse runner (parse-runner.ts, in the service) and its children
// (parse-child.ts, one forked process each): both ends import the shapes from here, so neither imports the
// other (the child would otherwise load the runner's module with its pool and timers).
import type { ChunkedDocument } from '../chunking/chunker.ts';
import type { ParseLimits } from './limits.ts';

/** One document to parse, sent by the runner to a child. */
export interface ParseRequest {
  id: number;
  data: Uint8Array;
  filename: string;
  mediaType?: string;
  limits: ParseLimits;
  /** Chunk the parsed document too (chunkDocument with default options). */
  chunk?: boolean;
}

/** Where a child's time on one document went, ms: reading text (`parse`), the parser's tables and figures, chunking. */
export interface ParseTimings {
  parse: number;
  tables: number;
  figures: number;
  chunk: number;
}

/** A child's answer: pages read so far (paged formats) while it parses, the chunks in parts of CHUNK_PART (with `chunk`), then the result or the error. */
export type ParseReply =
  | { id: number; part: ChunkedDocument['chunks'] }
  | { id: number; pages: { parsed: number; total: number } }
  | { id: number; ok: true; doc: unknown; chunked?: ChunkedDocument; timings?: ParseTimings }
  | { id: number; ok: false; parseError?: { jobCode: 413 | 415 | 422; errorCode: string; message: string }; message: string };

/** Chunks per `{id, part}` message of a parse child: ~0.5 MB of text, a few ms to deserialise here. */
export const CHUNK_PART = 500;
