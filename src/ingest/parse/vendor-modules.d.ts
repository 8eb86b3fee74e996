// Type declarations for two untyped dependencies of html-to-markdown.ts: domino's own d.ts declares the
// module under its old name 'domino', and turndown-plugin-gfm ships no types.
declare module '@mixmark-io/domino' {
  export function createDocument(html?: string, force?: boolean): Document;
  const domino: { createDocument: typeof createDocument };
  export default domino;
}

declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
  export const strikethrough: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
  export const taskListItems: TurndownService.Plugin;
  export const highlightedCodeBlock: TurndownService.Plugin;
}
