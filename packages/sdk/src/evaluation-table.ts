// A plain-text table of an evaluation report, one row per variant, for terminals and language models
// alike (the CLI's `docsearch eval` and the MCP tool `evaluate_search` print it).
import type { EvaluationReport } from './types.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * The report as aligned text: per variant the found share, tokens (mean/p95), empty contexts, latency
 * (p50/p95 ms), recall@10, MRR, nDCG@10 and the recommended min_relevance; then the misses by cause.
 */
export function evaluationTable(report: EvaluationReport): string {
  const head = ['variant', 'found', 'tokens mean/p95', 'empty', 'ms p50/p95', 'R@10', 'MRR', 'nDCG@10', 'min_relevance → found'];
  const rows = report.variants.map((v) => [
    v.name, `${pct(v.found_share)} (${v.found}/${v.evaluated})`, `${v.tokens_mean}/${v.tokens_p95}`, String(v.empty_contexts),
    `${v.latency_ms.p50}/${v.latency_ms.p95}`, v.recall_at_10.toFixed(3), v.mrr.toFixed(3), v.ndcg_at_10.toFixed(3),
    `${v.recommended_min_relevance.value} → ${pct(v.recommended_min_relevance.found_share)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const misses = report.variants.map((v) => {
    const causes = Object.entries(v.misses).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`);
    return `misses ${v.name}: ${causes.length ? causes.join(', ') : 'none'}`;
  });
  return [line(head), ...rows.map(line), '', ...misses].join('\n');
}
