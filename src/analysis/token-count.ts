// LLM token estimates for chunk sizing and context budgets (DESIGN.md §4): gpt-tokenizer's o200k_base
// encoding, with special-token checks off so user text containing `<|endoftext|>` cannot throw.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Number of o200k_base tokens in `text`.
 * For texts over 200k characters the count is extrapolated from a prefix (linear in length) to bound cost.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  const LIMIT = 200_000;
  if (text.length <= LIMIT) return encode(text, { allowedSpecial: 'all', disallowedSpecial: new Set() }).length;
  const head = encode(text.slice(0, LIMIT), { allowedSpecial: 'all', disallowedSpecial: new Set() }).length;
  return Math.ceil((head * text.length) / LIMIT);
}
