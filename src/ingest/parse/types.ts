// The structured form every parser produces: an ordered list of blocks with their page numbers, which
// the chunker turns into chunks and chunksets. Keeping one intermediate form means one chunker serves
// every file format.

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'table' | 'code' | 'image';

export interface Block {
  kind: BlockKind;
  /** Markdown of the block (a table is a GFM table, a list keeps its markers, code is fenced). */
  text: string;
  /** Heading level 1..6 when kind = 'heading'. */
  level?: number;
  /** 1-based page the block starts on (1 for formats without pages). */
  page: number;
  /** For kind = 'image': the asset name referenced as `[IMAGE: name]`. */
  assetName?: string;
}

export interface ImageAsset {
  name: string;
  /** e.g. image/png */
  mediaType: string;
  data: Buffer;
  alt?: string;
  page: number;
}

export interface ParsedDocument {
  /** Detected title (metadata or first heading); undefined -> the filename is used. */
  title?: string;
  /** Page count of the source (1 for page-less formats). */
  pages: number;
  blocks: Block[];
  images: ImageAsset[];
  /**
   * Images detected in the source, including those whose bytes were not extracted (PDF image
   * XObjects, remote HTML images). Absent -> count the image blocks / assets.
   */
  imageCount?: number;
  /**
   * Images referenced by URL (HTML <img src>, Markdown ![](src)), not fetched by the parser: the
   * pipeline resolves them against X-Base-URL and adds what it fetched to `images` (assets/remote-images.ts).
   */
  remoteImages?: RemoteImageRef[];
}

export interface RemoteImageRef {
  /** Name used in the `[IMAGE: name]` reference. */
  name: string;
  /** The link as written (relative or absolute). */
  src: string;
  alt?: string;
  page: number;
}

export interface ParseInput {
  data: Buffer;
  /** Filename from Content-Disposition or the URL; its extension selects the parser. */
  filename: string;
  /** Media type reported by the client or the remote server, if any. */
  mediaType?: string;
}

/**
 * A parse failure that is the input's fault. `jobCode` is the job status code (DESIGN.md §5):
 * 415 unsupported or unreadable type, 422 nothing extractable / encrypted / parse_timeout,
 * 413 document_too_large (page count or memory over the limit).
 */
export class ParseError extends Error {
  constructor(readonly jobCode: 413 | 415 | 422, readonly errorCode: string, message: string) {
    super(message);
    this.name = 'ParseError';
  }
}
