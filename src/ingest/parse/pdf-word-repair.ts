// Repairs words that a PDF's text layer splits before their last letter. pdfjs inserts a space wherever
// the gap between two glyphs exceeds a fraction of the font size, and some generators (EDGAR filings among
// them) kern a word's last letter that far: "Consolidated Balance Shee t", "Stockholders' Equit y",
// "Informatio n". The split costs the word its match ("balance sheet" misses the balance sheet) and
// its stem. Which splits are artefacts is decided by the document itself, with no dictionary, so it works
// in any script with letter case: "Shee t" is joined when the document writes "sheet" elsewhere as one
// word and never writes "shee" alone; "Flow s" stays (the document writes "flow"), and so does "LLC d".
// Capitals split before their last one to three letters ("LIQUIDI TY") follow the same rule.
// Linear in the text: one pass to count the document's words, one to rewrite the candidates.
import type { Block } from './types.ts';

/**
 * A word of two or more letters, a space, then what ends the word: one lowercase letter ("Shee t"), or in
 * capitals one to three capital letters ("LIQUIDI TY", "ESTIMA TES", "OPERATI ONS": headings of the same
 * filings, kerned wider at the end; `joinable` then requires the left part to be all capitals as well).
 */
const SPLIT = /(?<![\p{L}\p{M}])(\p{L}[\p{L}\p{M}]+) (\p{Ll}|\p{Lu}{1,3})(?![\p{L}\p{M}\p{N}])/gu;
const CAPITALS = /^[\p{Lu}\p{M}]+$/u;
const WORD = /\p{L}[\p{L}\p{M}]*/gu;

/**
 * Join split words (file header) in every block's text. Blocks are not modified; blocks without a
 * repaired word are returned as they are.
 * @param blocks the document's blocks in order
 * @returns blocks with "Shee t" → "Sheet" wherever the document vouches for the joined word
 */
export function repairSplitWords(blocks: Block[]): Block[] {
  // Occurrences of each lower-cased word, and of each candidate's left part as part of a candidate split.
  const words = new Map<string, number>();
  const asLeft = new Map<string, number>();
  for (const b of blocks) {
    for (const m of b.text.matchAll(WORD)) { const w = m[0].toLowerCase(); words.set(w, (words.get(w) ?? 0) + 1); }
    for (const m of b.text.matchAll(SPLIT)) { const w = m[1].toLowerCase(); asLeft.set(w, (asLeft.get(w) ?? 0) + 1); }
  }
  if (asLeft.size === 0) return blocks;
  const joinable = (left: string, right: string): boolean => {
    if (CAPITALS.test(right) && !CAPITALS.test(left)) return false; // "Apple I", "Form S": a capital starts a word
    const l = left.toLowerCase();
    // The left part never stands alone (every occurrence of it is such a split), the joined word does.
    return (words.get(l) ?? 0) <= (asLeft.get(l) ?? 0) && (words.get(l + right.toLowerCase()) ?? 0) > 0;
  };
  return blocks.map((b) => {
    let changed = false;
    const text = b.text.replace(SPLIT, (all, left: string, right: string) => {
      if (!joinable(left, right)) return all;
      changed = true;
      return left + right;
    });
    return changed ? { ...b, text } : b;
  });
}
