// Documents: the namespace's documents from GET /v3/docsearch/docs (title, filename, pages, chunk count,
// language, lexical-index state) with a two-step delete, and the project's typed attributes from
// GET /v3/docsearch/attributes (names and types; values live on documents and are used by filters).
import { api } from './api.js';
import { h, replace, errorBox, badge, formatTime, confirmButton } from './dom.js';

let els;

function deleteButton(doc) {
  return confirmButton({
    label: 'Delete', confirmLabel: 'Confirm delete', attrs: { 'data-action': 'delete' },
    action: async () => {
      try {
        await api(`/docsearch/docs/${encodeURIComponent(doc.doc_id)}`, { method: 'DELETE' });
      } catch (err) {
        replace(els.status, errorBox(err));
        throw err;
      }
      await refresh();
    },
  });
}

function docsTable(res) {
  if (!res.documents.length) return h('p', { class: 'empty' }, 'No documents yet. Upload some on the Upload tab.');
  return h('table', { class: 'grid', id: 'docs' },
    h('thead', {}, h('tr', {}, ['Title', 'Filename', 'Pages', 'Chunks', 'Language', 'State', 'Ingested', ''].map((t, i) => h('th', { class: i === 2 || i === 3 ? 'num' : null }, t)))),
    h('tbody', {}, res.documents.map((d) => h('tr', { 'data-doc-id': d.doc_id },
      h('td', {}, h('div', {}, d.title || '(untitled)'), h('code', { class: 'small' }, d.doc_id)),
      h('td', {}, d.filename),
      h('td', { class: 'num' }, d.pages),
      h('td', { class: 'num' }, d.chunk_count),
      h('td', {}, d.language || '—'),
      h('td', {}, badge(d.bm25_state)),
      h('td', {}, formatTime(d.ingested_at)),
      h('td', {}, deleteButton(d))))));
}

function attributesPanel(res) {
  const list = res.attributes.length
    ? h('ul', { class: 'chips', id: 'attributes' }, res.attributes.map((a) => h('li', {}, h('code', {}, a.name), ' ', h('span', { class: 'muted' }, a.type))))
    : h('span', { class: 'muted' }, 'none yet (set them at ingest with X-Attributes)');
  return h('div', { class: 'attributes' }, h('strong', {}, `Attributes (${res.attributes.length} of ${res.max_names}): `), list);
}

async function refresh() {
  replace(els.status, h('span', { class: 'muted' }, 'Loading…'));
  const [docs, attrs] = await Promise.allSettled([api('/docsearch/docs'), api('/docsearch/attributes')]);
  replace(els.status);
  if (docs.status === 'fulfilled') {
    replace(els.summary, `${docs.value.total_documents} document(s) in namespace `, h('code', {}, docs.value.namespace));
    replace(els.table, docsTable(docs.value));
  } else replace(els.table, errorBox(docs.reason));
  replace(els.attributes, attrs.status === 'fulfilled' ? attributesPanel(attrs.value) : errorBox(attrs.reason));
}

/** Build the view once. */
export function mount(section) {
  els = { summary: h('p', { class: 'muted' }), attributes: h('div'), status: h('div'), table: h('div') };
  replace(section,
    h('div', { class: 'title-row' }, h('h1', {}, 'Documents'), h('button', { type: 'button', id: 'docs-refresh', onclick: () => refresh() }, 'Refresh')),
    els.summary, els.attributes, els.status, els.table);
}

export function show() {
  void refresh();
}
