// Search playground: a query plus the search request's fields as controls; POST /v3/docsearch/search.
// prompt_ready answers show the rendered context as the model would get it; json answers show every hit
// with its fused score and the per-stage scores (ann, bm25, rrf, reranker). Empty controls are left out
// of the request, so the service's defaults apply. Attribute filters are clauses {attr, op, value}
// sent as the request's attribute_filters (ANDed); a filter the service refuses shows its error.
import { api } from './api.js';
import { h, replace, errorBox, formatScore } from './dom.js';
import { ALL_OPERATORS, OPERATORS, filterValue, loadAttributes } from './attributes.js';

let els;
let registered = new Map();

const num = (id, attrs) => h('input', { type: 'number', id, inputmode: 'decimal', ...attrs });

/** The request body from the controls (only fields that are set). */
function requestBody() {
  const body = { query: els.query.value.trim(), format: els.format.value };
  for (const [field, el, parse] of [
    ['min_relevance', els.minRelevance, Number.parseFloat], ['target_tokens', els.targetTokens, Number.parseInt],
    ['max_tokens', els.maxTokens, Number.parseInt], ['expand_tightness', els.expandTightness, Number.parseFloat],
  ]) {
    if (el.value.trim() !== '') body[field] = parse(el.value, 10);
  }
  if (els.tier.value) body.retrieval_tier = els.tier.value;
  if (els.docFilter.value.trim()) body.doc_filter = els.docFilter.value.trim();
  const clauses = [...els.filters.querySelectorAll('tr')].map((tr) => ({
    attr: tr.querySelector('.filter-attr').value.trim(), op: tr.querySelector('.filter-op').value, value: tr.querySelector('.filter-value').value,
  })).filter((c) => c.attr);
  if (clauses.length) body.attribute_filters = clauses.map((c) => ({ attr: c.attr, op: c.op, value: filterValue(c.value, c.op, registered.get(c.attr)) }));
  return body;
}

/** The operators offered for `attr`: its type's, or every operator for a name the project never used. */
function fillOperators(select, attr) {
  const ops = OPERATORS[registered.get(attr)] ?? ALL_OPERATORS;
  const keep = select.value;
  replace(select, ops.map((op) => h('option', { value: op }, op)));
  if (ops.includes(keep)) select.value = keep;
}

function addFilterRow() {
  const attr = h('input', { type: 'text', class: 'filter-attr', list: 'filter-attrs', placeholder: 'attribute', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Attribute' });
  const op = h('select', { class: 'filter-op', 'aria-label': 'Operator' });
  const value = h('input', { type: 'text', class: 'filter-value', placeholder: 'value', autocomplete: 'off', 'aria-label': 'Value' });
  const type = h('span', { class: 'muted small filter-type' });
  const update = () => { fillOperators(op, attr.value.trim()); type.textContent = registered.get(attr.value.trim()) ?? (attr.value.trim() ? 'not used yet: matches nothing' : ''); };
  update();
  attr.addEventListener('input', update);
  const tr = h('tr', {}, h('td', {}, attr), h('td', {}, op), h('td', {}, value), h('td', {}, type),
    h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => tr.remove() }, 'remove')));
  els.filters.append(tr);
}

function stats(res) {
  const items = [['results', res.result_count], ['dropped', res.results_dropped], ['tokens', res.tokens_estimated],
    ['mode', res.mode], ['language', res.detected_lang ?? 'none'], ['namespace', res.namespace]];
  return h('dl', { class: 'stats' }, items.filter(([, v]) => v !== undefined).map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]));
}

function hitsTable(results) {
  if (!results.length) return h('p', { class: 'empty' }, 'No hit reached min_relevance.');
  return h('table', { class: 'grid hits', id: 'hits' },
    h('thead', {}, h('tr', {}, ['#', 'Document', 'Pages', 'Score', 'ann', 'bm25', 'rrf', 'reranker', 'Content'].map((t, i) => h('th', { class: i >= 3 && i <= 7 ? 'num' : null }, t)))),
    h('tbody', {}, results.map((hit, i) => h('tr', { 'data-doc-id': hit.doc_id },
      h('td', { class: 'num' }, i + 1),
      h('td', {}, h('div', {}, hit.title || '(untitled)'), h('code', { class: 'small' }, hit.doc_id)),
      h('td', {}, (hit.pages ?? []).join(', ') || '—'),
      h('td', { class: 'num strong' }, formatScore(hit.score)),
      ['ann', 'bm25', 'rrf', 'reranker'].map((k) => h('td', { class: 'num' }, formatScore(hit.scores?.[k]))),
      h('td', { class: 'content' }, h('details', {}, h('summary', {}, (hit.content ?? '').slice(0, 90) + ((hit.content ?? '').length > 90 ? '…' : '')), h('pre', {}, hit.content ?? '')))))));
}

async function run(ev) {
  ev.preventDefault();
  const body = requestBody();
  replace(els.request, JSON.stringify(body, null, 2));
  replace(els.out, h('p', { class: 'muted' }, 'Searching…'));
  const started = performance.now();
  try {
    const res = await api('/docsearch/search', { method: 'POST', body });
    const ms = Math.round(performance.now() - started);
    replace(els.out, h('div', { class: 'result-head' }, stats(res), h('span', { class: 'muted' }, `${ms} ms`)),
      body.format === 'json' ? hitsTable(res.results ?? [])
        : h('pre', { class: 'context', id: 'context' }, res.context || '(empty context: no hit reached min_relevance)'),
      h('details', { class: 'raw' }, h('summary', {}, 'Raw response'), h('pre', {}, JSON.stringify(res, null, 2))));
  } catch (err) {
    replace(els.out, errorBox(err));
  }
}

/** Build the view once. */
export function mount(section) {
  els = {
    query: h('input', { type: 'search', id: 'query', placeholder: 'Ask a question about your documents', required: true, autocomplete: 'off' }),
    format: h('select', { id: 'format' }, h('option', { value: 'prompt_ready' }, 'prompt_ready'), h('option', { value: 'json' }, 'json')),
    minRelevance: num('min_relevance', { min: 0, max: 1, step: 0.05, placeholder: '0.3' }),
    targetTokens: num('target_tokens', { min: 100, max: 500000, step: 100, placeholder: '5000' }),
    maxTokens: num('max_tokens', { min: 100, max: 500000, step: 100, placeholder: '15000' }),
    expandTightness: num('expand_tightness', { min: 0, max: 1, step: 0.05, placeholder: 'default' }),
    tier: h('select', { id: 'retrieval_tier' }, h('option', { value: '' }, 'default'), h('option', { value: 'standard' }, 'standard'), h('option', { value: 'advanced' }, 'advanced')),
    docFilter: h('input', { type: 'text', id: 'doc_filter', list: 'doc-ids', placeholder: 'any document', autocomplete: 'off' }),
    docIds: h('datalist', { id: 'doc-ids' }),
    filters: h('tbody', { id: 'filter-rows' }),
    filterAttrs: h('datalist', { id: 'filter-attrs' }),
    request: h('pre', { class: 'request' }),
    out: h('div', { class: 'search-out', id: 'search-out' }),
  };
  const field = (label, el, hint) => h('label', { class: 'field' }, h('span', {}, label), el, hint ? h('small', {}, hint) : null);
  replace(section,
    h('h1', {}, 'Search playground'),
    h('form', { class: 'card search-form', onsubmit: run },
      h('div', { class: 'row' }, els.query, h('button', { type: 'submit', id: 'search-submit' }, 'Search')),
      h('div', { class: 'controls' },
        field('format', els.format), field('min_relevance', els.minRelevance, '0..1'),
        field('target_tokens', els.targetTokens, 'soft budget'), field('max_tokens', els.maxTokens, 'hard ceiling'),
        field('expand_tightness', els.expandTightness, '0..1'), field('retrieval_tier', els.tier),
        field('doc_filter', els.docFilter, 'one doc_id'), els.docIds),
      h('div', { class: 'filters' },
        h('div', { class: 'title-row' }, h('span', { class: 'field-title' }, 'attribute_filters'),
          h('button', { type: 'button', id: 'filter-add', class: 'small', onclick: addFilterRow }, 'Add filter')),
        h('table', { class: 'attr-table' }, els.filters), els.filterAttrs,
        h('small', { class: 'muted' }, 'Clauses are ANDed. Value: JSON (5, true, "2021", ["a","b"]) or plain text; for in, nin and contains_any a comma-separated list. '
          + 'A text attribute\'s value stays text.')),
      h('details', { class: 'raw' }, h('summary', {}, 'Request body'), els.request)),
    els.out);
}

/** Refresh the attribute names and the doc_filter suggestions. */
export function show() {
  void loadAttributes().then((map) => {
    registered = map;
    replace(els.filterAttrs, [...map].map(([name, type]) => h('option', { value: name }, type)));
    for (const tr of els.filters.querySelectorAll('tr')) tr.querySelector('.filter-attr').dispatchEvent(new Event('input'));
  });
  api('/docsearch/docs').then((res) => replace(els.docIds,
    res.documents.map((d) => h('option', { value: d.doc_id }, d.title || d.filename)))).catch(() => {});
}
