// Stage 7 of retrieval: the token budget (DESIGN.md §5). Hits are admitted best-first in their core form
// (their retrieved chunks) while they fit `target_tokens`; then, best first, each admitted hit takes its
// expanded form (the neighbours `expand_tightness` gives it) if that still fits the target: another
// probably relevant passage is worth more than a first passage's neighbours (admitting
// expanded forms first, the first hits' neighbours could fill the budget and leave out the ninth hit at 0.37; docs/search.md
// "Token budget"). At the first hit whose core does not fit the result is cut. The budget passes
// `target_tokens` only for a lone best hit larger than it, which may use up to `max_tokens` (cut if larger
// still): the spec lets a result grow toward `max_tokens` for a tight multi-document cluster, and the
// service does not, since growing bought no answer in any measured context and only cost tokens (decision
// record 2026-11-29-budget-without-cluster-growth). Every hit that passed the relevance filters but was not
// admitted counts in `results_dropped`.

export interface BudgetItem {
  docId: string;
  score: number;
  /** Estimated tokens of the expanded hit as rendered (content plus its markers). */
  tokens: number;
  /** Estimated tokens of the hit's core (retrieved chunks only); ≤ tokens. */
  coreTokens: number;
  /** Tokens the hit's document header adds if it is the document's first admitted hit. */
  docOverhead: number;
}

export interface Admission {
  /** Position in the input list. */
  index: number;
  variant: 'expanded' | 'core';
  /** Set only for a lone best hit larger than max_tokens: render it cut to this many tokens. */
  truncateTo?: number;
}

export interface BudgetResult {
  /** Admitted hits in input (rank) order. */
  admitted: Admission[];
  /** Hits not admitted (input length − admitted). */
  dropped: number;
  /** Total estimated tokens of the admitted hits. */
  tokens: number;
}

/**
 * How many of `items` (best first) admission can reach at most: admitted hits are always a prefix, each
 * costs at least its core tokens (plus its document's header the first time), and after the best hit
 * nothing is admitted past `target`; so the first item at which even the all-core sum of the prefix exceeds
 * `target` can never be admitted. Items whose estimates are lower bounds (hits before expansion: expansion
 * only adds chunks) give an upper bound, which is how search-service.ts expands every hit that may be shown
 * in one engine read.
 * @param target the budget's target_tokens (already clamped)
 * @returns a count in [min(1, items.length), items.length]; the first item always counts (a lone best hit
 *          larger than the target is admitted up to max_tokens, cut if need be)
 */
export function admissiblePrefix(items: BudgetItem[], target: number): number {
  const docs = new Set<string>();
  let least = 0;
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    least += it.coreTokens + (docs.has(it.docId) ? 0 : it.docOverhead);
    docs.add(it.docId);
    if (least > target) return Math.max(1, i);
  }
  return items.length;
}

/** Resolve the effective budget: defaults 5000/15000; target above max is lowered to max (spec). */
export function clampBudget(target: number | undefined, max: number | undefined): { target: number; max: number } {
  const maxTokens = max ?? 15000;
  return { target: Math.min(target ?? 5000, maxTokens), max: maxTokens };
}

/**
 * Admit hits under the budget: their cores best first while they fit the target (a lone best hit over it
 * may use max_tokens, cut if need be), then, best first, the expanded form of each admitted hit whose
 * expansion still fits the target.
 * @param items   hits best first (score descending)
 * @param budget  target and max tokens (already clamped)
 */
export function admitWithinBudget(items: BudgetItem[], budget: { target: number; max: number }): BudgetResult {
  const admitted: Admission[] = [];
  const docsIn = new Set<string>();
  let used = 0;
  // `expandable`: the hit may enter expanded right away (a lone best hit over the target); else its core.
  const tryAdmit = (i: number, limit: number, expandable = false): boolean => {
    const it = items[i];
    const overhead = docsIn.has(it.docId) ? 0 : it.docOverhead;
    let variant: Admission['variant'] | null = null;
    if (expandable && used + it.tokens + overhead <= limit) variant = 'expanded';
    else if (used + it.coreTokens + overhead <= limit) variant = 'core';
    if (variant === null) return false;
    admitted.push({ index: i, variant });
    used += (variant === 'expanded' ? it.tokens : it.coreTokens) + overhead;
    docsIn.add(it.docId);
    return true;
  };

  let i = 0;
  while (i < items.length && tryAdmit(i, budget.target)) i++;
  if (i < items.length && admitted.length === 0) {
    // The best hit alone exceeds the target: it may use up to max_tokens, cut if need be.
    if (!tryAdmit(i, budget.max, true)) {
      admitted.push({ index: i, variant: 'core', truncateTo: Math.max(0, budget.max - items[i].docOverhead) });
      used = budget.max;
    }
  }
  // Expansions, best first, each while it fits the target.
  for (const a of admitted) {
    const it = items[a.index];
    if (a.variant === 'core' && a.truncateTo === undefined && used - it.coreTokens + it.tokens <= budget.target) {
      used += it.tokens - it.coreTokens;
      a.variant = 'expanded';
    }
  }
  return { admitted, dropped: items.length - admitted.length, tokens: used };
}
