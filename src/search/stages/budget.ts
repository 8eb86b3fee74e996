// Stage 7 of retrieval: the token budget (DESIGN.md §5). Hits are admitted best-first in their core form
// (their retrieved chunks) while they fit `target_tokens`; then, best first, each admitted hit takes its
// expanded form (the neighbours `expand_tightness` gives it) if that still fits the target: another
// probably relevant passage is worth more than a first passage's neighbours (admitting
// expanded forms first, the first hits' neighbours could fill the budget and leave out the ninth hit at 0.37; docs/search.md
// "Token budget"). At the first hit whose core does not fit the result is cut — except that the
// budget may grow toward `max_tokens` to finish a tight cluster: when the hits around the cut (scores
// within CLUSTER_MARGIN of the last admitted one) come from at least two documents, the cluster's hits of
// documents the context does not hold yet are admitted while they fit `max_tokens` (one tie does not leave
// a document out; it adds nothing of the documents already in) — provided the last admitted hit is probably relevant
// (score ≥ CLUSTER_MIN_SCORE): a tie among hits the service itself deems irrelevant, which is what a request
// with a low `min_relevance` meets at its cut, is no reason to pass the target. Every hit that passed the relevance filters but was not
// admitted counts in `results_dropped`.

/** Score distance (probability units) within which hits at the cut form one cluster. */
export const CLUSTER_MARGIN = 0.05;

/**
 * Lowest score of the last admitted hit at which the budget may grow past `target_tokens` for a cluster:
 * the spec's default `min_relevance` (0.3), the score below which the service holds a hit probably
 * irrelevant. Without it a request with `min_relevance: 0` found every hit below 0.05 "tied" with its
 * cut and grew to `max_tokens` (11 900 tokens of a 5 000 target at 100k chunks, bench:latency).
 */
export const CLUSTER_MIN_SCORE = 0.3;

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
  /** True when the budget grew past target_tokens to finish a tight cluster. */
  grewForCluster: boolean;
  /** Total estimated tokens of the admitted hits. */
  tokens: number;
  /** True when the decision reached the end of `items` and `hasMore` was set: pass more items. */
  needsMore: boolean;
}

/**
 * How many of `items` (best first) admission can reach at most: admitted hits are always a prefix, each
 * costs at least its core tokens (plus its document's header the first time), and nothing is admitted past
 * `max`; so the first item at which even the all-core sum of the prefix exceeds `max` can never be admitted.
 * Items whose estimates are lower bounds (hits before expansion: expansion only adds chunks) give an
 * upper bound, which is how search-service.ts expands every hit that may be shown in one engine read.
 * @returns a count in [min(1, items.length), items.length]; the first item always counts (a lone best hit
 *          larger than max is admitted cut)
 */
export function admissiblePrefix(items: BudgetItem[], max: number): number {
  const docs = new Set<string>();
  let least = 0;
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    least += it.coreTokens + (docs.has(it.docId) ? 0 : it.docOverhead);
    docs.add(it.docId);
    if (least > max) return Math.max(1, i);
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
 * may use max_tokens, cut if need be; a tight cluster at the cut may grow toward max_tokens), then, best
 * first, the expanded form of each admitted hit whose expansion still fits the target.
 * @param items   hits best first (score descending)
 * @param budget  target and max tokens (already clamped)
 * @param hasMore true when more (not yet expanded) hits follow `items`
 * @param margin  cluster margin (default CLUSTER_MARGIN)
 * @param minScore lowest score of the last admitted hit at which a cluster may grow (CLUSTER_MIN_SCORE)
 */
export function admitWithinBudget(items: BudgetItem[], budget: { target: number; max: number }, hasMore = false, margin = CLUSTER_MARGIN, minScore = CLUSTER_MIN_SCORE): BudgetResult {
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
    i++;
    while (i < items.length && tryAdmit(i, budget.target)) i++;
  }

  let grewForCluster = false;
  let needsMore = hasMore && i >= items.length;
  const anchor = admitted.length > 0 ? items[admitted[admitted.length - 1].index].score : 0;
  if (i < items.length && admitted.length > 0 && anchor >= minScore) {
    let end = i;
    while (end < items.length && items[end].score >= anchor - margin) end++;
    if (end === items.length && hasMore) needsMore = true;
    const clusterDocs = new Set<string>();
    for (const a of admitted) if (items[a.index].score <= anchor + margin) clusterDocs.add(items[a.index].docId);
    for (let j = i; j < end; j++) clusterDocs.add(items[j].docId);
    if (end > i && clusterDocs.size >= 2) {
      // Past the target, only for documents the context does not hold yet: the rule keeps a tie from
      // leaving a document out, it is no reason to add more of the documents already in.
      for (let j = i; j < end; j++) {
        if (docsIn.has(items[j].docId)) continue;
        if (!tryAdmit(j, budget.max)) break;
        grewForCluster = true;
      }
    }
  }
  // Expansions, best first, each while it fits the target (none past it: a grown cluster keeps its cores).
  for (const a of admitted) {
    const it = items[a.index];
    if (a.variant === 'core' && a.truncateTo === undefined && used - it.coreTokens + it.tokens <= budget.target) {
      used += it.tokens - it.coreTokens;
      a.variant = 'expanded';
    }
  }
  return { admitted, dropped: items.length - admitted.length, grewForCluster, tokens: used, needsMore };
}
