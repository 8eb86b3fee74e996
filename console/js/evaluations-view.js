// Evaluations: upload a JSONL file of labelled questions (one case per line), optionally with request
// variants, start an evaluation (POST /v3/docsearch/evaluations), follow its progress, and read the
// report: the variants side by side, their figures as bars, the reliability curve of score, the found
// share over the min_relevance sweep with the recommended value marked, and the missed cases by cause.
// Past evaluations are listed and can be opened or deleted. docs/evaluations.md has the fields.
import { api } from './api.js';
import { h, replace, errorBox, badge, formatTime, formatScore } from './dom.js';
import { barChart, lineChart } from './charts.js';

let els;
let polling;

const pct = (x) => `${(x * 100).toFixed(1)}%`;

/** The cases of a JSONL text; throws naming the first line that is not a JSON object. */
function parseJsonl(text, what) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let v;
    try { v = JSON.parse(line); } catch { throw new Error(`${what} line ${i + 1} is not JSON`); }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} line ${i + 1} is not a JSON object`);
    out.push(v);
  });
  return out;
}

function comparison(report) {
  const cols = ['Variant', 'Found', 'Tokens mean / p95', 'Empty', 'ms p50 / p95', 'Recall@10', 'MRR', 'nDCG@10', 'Recommended min_relevance'];
  return h('table', { class: 'grid', id: 'eval-variants' },
    h('thead', {}, h('tr', {}, cols.map((c, i) => h('th', { class: i ? 'num' : null }, c)))),
    h('tbody', {}, report.variants.map((v) => h('tr', { 'data-variant': v.name },
      h('td', {}, h('div', { class: 'strong' }, v.name), h('code', { class: 'small' }, JSON.stringify(v.request))),
      h('td', { class: 'num strong' }, `${pct(v.found_share)} `, h('span', { class: 'muted' }, `(${v.found}/${v.evaluated})`)),
      h('td', { class: 'num' }, `${v.tokens_mean} / ${v.tokens_p95}`),
      h('td', { class: 'num' }, v.empty_contexts),
      h('td', { class: 'num' }, `${v.latency_ms.p50} / ${v.latency_ms.p95}`),
      h('td', { class: 'num' }, formatScore(v.recall_at_10)),
      h('td', { class: 'num' }, formatScore(v.mrr)),
      h('td', { class: 'num' }, formatScore(v.ndcg_at_10)),
      h('td', { class: 'num' }, `${v.recommended_min_relevance.value} → ${pct(v.recommended_min_relevance.found_share)}`)))));
}

function misses(report, cases) {
  return report.variants.map((v) => {
    const missed = v.per_case.filter((c) => !c.found);
    const causes = Object.entries(v.misses).filter(([, n]) => n > 0).map(([k, n]) => `${k.replaceAll('_', ' ')} ${n}`).join(' · ') || 'none';
    return h('details', { class: 'misses', 'data-variant': v.name },
      h('summary', {}, `${v.name}: ${missed.length} missed — ${causes}`),
      missed.length ? h('table', { class: 'grid' },
        h('thead', {}, h('tr', {}, ['Case', 'Question', 'Cause', 'Rank', 'Score', 'Tokens'].map((t, i) => h('th', { class: i >= 3 ? 'num' : null }, t)))),
        h('tbody', {}, missed.slice(0, 200).map((c) => h('tr', {},
          h('td', {}, h('code', { class: 'small' }, c.id ?? `#${c.index + 1}`)),
          h('td', {}, cases?.[c.index]?.query ?? '—'),
          h('td', {}, badge(c.miss_cause ?? 'unknown')),
          h('td', { class: 'num' }, c.rank ?? '—'),
          h('td', { class: 'num' }, formatScore(c.score)),
          h('td', { class: 'num' }, c.tokens))))) : null);
  });
}

function renderReport(ev, cases) {
  const r = ev.report;
  const names = r.variants.map((v) => v.name);
  replace(els.report,
    h('div', { class: 'title-row' }, h('h2', {}, ev.name), h('span', { class: 'muted' }, `${ev.case_count} cases · ${formatTime(ev.finished_at)} · `, h('code', { class: 'small' }, ev.evaluation_id))),
    comparison(r),
    h('div', { class: 'charts' },
      h('figure', {}, barChart('Per-variant figures', names, [
        { label: 'found', values: r.variants.map((v) => v.found_share) },
        { label: 'recall@10', values: r.variants.map((v) => v.recall_at_10) },
        { label: 'MRR', values: r.variants.map((v) => v.mrr) },
        { label: 'nDCG@10', values: r.variants.map((v) => v.ndcg_at_10) },
      ], 'chart-variants'), h('figcaption', {}, 'Share of cases found in the context, and the ranking measures')),
      h('figure', {}, lineChart('Reliability of score', 'mean score of the bin', 'share relevant', r.variants.map((v) => ({
        name: v.name, points: v.reliability.map((b) => [b.mean_score, b.observed, b.n]),
      })), { diagonal: true, id: 'chart-reliability' }), h('figcaption', {}, 'Calibrated scores lie on the dashed line')),
      h('figure', {}, lineChart('Found share by min_relevance', 'min_relevance', 'found share', r.variants.map((v) => ({
        name: v.name, points: v.min_relevance_sweep.map((p) => [p.min_relevance, p.found_share]),
        marker: [v.recommended_min_relevance.value, v.recommended_min_relevance.found_share],
      })), { id: 'chart-sweep' }), h('figcaption', {}, 'Circled: the recommended min_relevance'))),
    h('h2', {}, 'Missed cases'),
    misses(r, cases));
}

function progressLine(ev) {
  return h('div', { class: 'progress', id: 'eval-progress' },
    h('div', {}, badge(ev.status), ` ${ev.progress.done} / ${ev.progress.total} runs`),
    h('progress', { max: ev.progress.total || 1, value: ev.progress.done }));
}

/** Poll an evaluation until it ends, then show its report (or its error). */
async function follow(id, cases) {
  clearTimeout(polling);
  try {
    const ev = await api(`/docsearch/evaluations/${encodeURIComponent(id)}`);
    if (ev.status === 'pending' || ev.status === 'running') {
      replace(els.status, progressLine(ev));
      polling = setTimeout(() => follow(id, cases), 400);
      return;
    }
    replace(els.status, progressLine(ev), ev.error ? errorBox({ code: ev.error.code, message: ev.error.message }) : null);
    if (ev.report) renderReport(ev, cases);
    await refreshList();
  } catch (err) {
    replace(els.status, errorBox(err));
  }
}

async function start(ev) {
  ev.preventDefault();
  replace(els.status);
  try {
    const file = els.file.files?.[0];
    if (!file) throw new Error('Choose a JSONL file of cases first.');
    const cases = parseJsonl(await file.text(), file.name);
    const variants = parseJsonl(els.variants.value, 'Variants');
    const body = { cases, ...(variants.length ? { variants } : {}), ...(els.name.value.trim() ? { name: els.name.value.trim() } : { name: file.name }) };
    const created = await api('/docsearch/evaluations', { method: 'POST', body });
    replace(els.report);
    await follow(created.evaluation_id, cases);
  } catch (err) {
    replace(els.status, errorBox(err));
  }
}

async function refreshList() {
  try {
    const { evaluations } = await api('/docsearch/evaluations?limit=20');
    replace(els.list, evaluations.length ? h('table', { class: 'grid', id: 'eval-list' },
      h('thead', {}, h('tr', {}, ['Name', 'Status', 'Cases', 'Created', 'Found', ''].map((t) => h('th', {}, t)))),
      h('tbody', {}, evaluations.map((e) => h('tr', { 'data-id': e.evaluation_id },
        h('td', {}, e.name), h('td', {}, badge(e.status)), h('td', { class: 'num' }, e.case_count), h('td', {}, formatTime(e.created_at)),
        h('td', {}, (e.summary ?? []).map((v) => `${v.name} ${pct(v.found_share)}`).join(' · ') || '—'),
        h('td', { class: 'num' },
          h('button', { type: 'button', class: 'small', onclick: () => follow(e.evaluation_id) }, 'Open'), ' ',
          h('button', { type: 'button', class: 'small danger', onclick: async () => { await api(`/docsearch/evaluations/${encodeURIComponent(e.evaluation_id)}`, { method: 'DELETE' }).catch((err) => replace(els.status, errorBox(err))); await refreshList(); } }, 'Delete'))))))
      : h('p', { class: 'empty' }, 'No evaluations yet.'));
  } catch (err) {
    replace(els.list, errorBox(err));
  }
}

export function mount(section) {
  els = {
    file: h('input', { type: 'file', id: 'eval-file', accept: '.jsonl,.json,.txt' }),
    name: h('input', { type: 'text', id: 'eval-name', placeholder: 'name (default: the file name)' }),
    variants: h('textarea', { id: 'eval-variants-input', rows: 3, spellcheck: 'false' }),
    status: h('div', { id: 'eval-status' }),
    list: h('div', { id: 'eval-list-box' }),
    report: h('div', { id: 'eval-report', class: 'report' }),
  };
  els.variants.value = '{}\n{"name": "tight", "min_relevance": 0.45, "target_tokens": 1500}';
  replace(section,
    h('h1', {}, 'Evaluations'),
    h('form', { class: 'card eval-form', id: 'eval-form', onsubmit: start },
      h('p', { class: 'hint' }, 'One case per line: {"query": "…", "doc_id": "…", "pages": [3]}, {"query": "…", "doc_ids": ["…", "…"]} or {"query": "…", "answers": ["…"]}. Each case is run through the default search and every variant; searches are not billed.'),
      h('div', { class: 'row' }, h('label', { class: 'field' }, 'cases (JSONL)', els.file), h('label', { class: 'field grow' }, 'name', els.name)),
      h('label', { class: 'field' }, 'variants: one JSON object of search fields per line ({} is the default request; up to 4)', els.variants),
      h('div', { class: 'row' }, h('button', { type: 'submit', id: 'eval-start' }, 'Start evaluation'))),
    els.status,
    h('div', { class: 'card' }, h('h2', {}, 'Recent evaluations'), els.list),
    els.report);
}

export function show() {
  void refreshList();
}

export function hide() {
  clearTimeout(polling);
}
