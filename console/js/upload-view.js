// Upload: files dropped on the page or chosen in the file input are sent one by one as raw bytes to
// POST /v3/docsearch/ingest (Content-Disposition names the file, its extension picks the parser), with the
// typed attributes set above the drop zone as X-Attributes / X-Attribute-Schema; each job is then followed
// live on its status stream until done or failed. The rows live in this page only: the Jobs tab lists
// the project's jobs from the API, also after a reload.
import { api, contentDisposition, watchJob, jobError } from './api.js';
import { h, replace, errorBox, formatBytes, badge } from './dom.js';
import { TYPES, attributeHeaders, loadAttributes } from './attributes.js';
import { progressBar } from './job-progress.js';

/** Value placeholders by type: what the service accepts for it. */
const PLACEHOLDER = { auto: '2024, true or text', int: '42', float: '0.5', bool: 'true or false', datetime: '2024-05-01T12:00:00Z', '[]datetime': '2024-05-01, 2024-06-01' };

let rows;
let attrs;
const queue = [];
let uploading = false;

function addRow(file, summary) {
  const status = h('td', { class: 'job-status' }, badge('queued'));
  const progress = h('td', { class: 'job-progress-cell' });
  const jobCell = h('td', { class: 'mono' }, '—');
  const detail = h('td', { class: 'job-detail' });
  const tr = h('tr', { 'data-filename': file.name, 'data-status': 'queued' },
    h('td', { class: 'file-cell' }, h('div', {}, file.name), summary.length ? h('div', { class: 'attr-summary' }, summary.map((item) => h('span', { class: 'attr-chip' }, item))) : null),
    h('td', { class: 'num' }, formatBytes(file.size)), jobCell, status, progress, detail);
  rows.prepend(tr);
  const set = (state, extra) => {
    tr.dataset.status = state;
    replace(status, badge(state));
    if (extra !== undefined) replace(detail, extra);
  };
  return { tr, jobCell, progress, set };
}

async function ingestOne(file, row, attributeHeaderValues) {
  row.set('uploading');
  let job;
  try {
    job = await api('/docsearch/ingest', {
      method: 'POST', body: file,
      headers: { 'content-type': 'application/octet-stream', 'content-disposition': contentDisposition(file.name), ...attributeHeaderValues },
    });
  } catch (err) {
    row.set('failed', errorBox(err));
    return;
  }
  row.tr.dataset.jobId = job.job_id;
  replace(row.jobCell, job.job_id);
  row.set(job.status?.status ?? 'pending', '');
  replace(row.progress, progressBar({ status: job.status?.status ?? 'pending' }));
  // Followed in the background: the next file uploads while this one is parsed and indexed.
  watchJob(job.job_id, (ev) => {
    const error = jobError(ev.error, ev.error_code);
    row.set(ev.status, error ? errorBox(error) : ev.doc_id ? h('span', {}, 'doc ', h('code', {}, ev.doc_id)) : '');
    replace(row.progress, progressBar(ev));
  }).catch((err) => row.set('unknown', errorBox(err)));
}

async function drain() {
  if (uploading) return;
  uploading = true;
  try {
    while (queue.length) {
      const { file, row, headers } = queue.shift();
      await ingestOne(file, row, headers);
    }
  } finally { uploading = false; }
}

function enqueue(files) {
  let built;
  try {
    built = attributeHeaders(attrs.read());
    replace(attrs.status);
  } catch (err) {
    replace(attrs.status, errorBox(err));
    return;
  }
  for (const file of files) queue.push({ file, row: addRow(file, built.summary), headers: built.headers });
  void drain();
}

/** The attribute rows editor: name (registered names suggested, their type preselected), type, value. */
function attributesEditor() {
  const body = h('tbody', { id: 'attr-rows' });
  const names = h('datalist', { id: 'attr-names' });
  let registered = new Map();
  const addAttrRow = () => {
    const name = h('input', { type: 'text', class: 'attr-name', list: 'attr-names', placeholder: 'name', autocomplete: 'off', spellcheck: 'false' });
    const type = h('select', { class: 'attr-type', 'aria-label': 'Type' }, h('option', { value: 'auto' }, 'auto (inferred)'), TYPES.map((t) => h('option', { value: t }, t)));
    const value = h('input', { type: 'text', class: 'attr-value', placeholder: PLACEHOLDER.auto, autocomplete: 'off' });
    const hint = () => { value.placeholder = PLACEHOLDER[type.value] ?? (type.value.startsWith('[]') ? 'a, b, c' : 'value'); };
    name.addEventListener('change', () => { if (registered.has(name.value.trim())) { type.value = registered.get(name.value.trim()); hint(); } });
    type.addEventListener('change', hint);
    const tr = h('tr', {}, h('td', {}, name), h('td', {}, type), h('td', {}, value),
      h('td', {}, h('button', { type: 'button', class: 'link', title: 'Remove', onclick: () => tr.remove() }, 'remove')));
    body.append(tr);
    return tr;
  };
  const status = h('div', { id: 'attr-status' });
  const card = h('div', { class: 'card attrs-card' },
    h('div', { class: 'title-row' }, h('h2', {}, 'Attributes for the next uploads'),
      h('button', { type: 'button', id: 'attr-add', class: 'small', onclick: addAttrRow }, 'Add attribute')),
    h('p', { class: 'hint' }, 'Optional. Sent with every file dropped while they are set (X-Attributes; a chosen type also as X-Attribute-Schema). '
      + 'datetime and encrypted_text must be chosen; a registered name keeps its type. Array values are comma-separated.'),
    h('table', { class: 'attr-table' }, h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Type'), h('th', {}, 'Value'), h('th', {}))), body),
    names, status);
  return {
    card, status,
    read: () => [...body.querySelectorAll('tr')].map((tr) => ({
      name: tr.querySelector('.attr-name').value, type: tr.querySelector('.attr-type').value, value: tr.querySelector('.attr-value').value,
    })),
    setRegistered: (map) => {
      registered = map;
      replace(names, [...map].map(([n, t]) => h('option', { value: n }, t)));
    },
  };
}

/** Build the view once. */
export function mount(section) {
  const input = h('input', { type: 'file', id: 'file-input', multiple: true, class: 'visually-hidden', onchange: () => { enqueue([...input.files]); input.value = ''; } });
  const zone = h('label', { class: 'dropzone', id: 'dropzone', for: 'file-input' },
    h('strong', {}, 'Drop files here'), h('span', {}, 'or click to choose files (PDF, Office, HTML, Markdown, text, images …, up to 50 MB each)'));
  for (const type of ['dragenter', 'dragover']) zone.addEventListener(type, (ev) => { ev.preventDefault(); zone.classList.add('over'); });
  for (const type of ['dragleave', 'drop']) zone.addEventListener(type, () => zone.classList.remove('over'));
  zone.addEventListener('drop', (ev) => {
    ev.preventDefault();
    const files = [...(ev.dataTransfer?.files ?? [])];
    if (files.length) enqueue(files);
  });
  attrs = attributesEditor();
  rows = h('tbody', { id: 'jobs' });
  replace(section,
    h('h1', {}, 'Upload documents'),
    attrs.card, input, zone,
    h('table', { class: 'grid uploads' },
      h('thead', {}, h('tr', {}, ['File', 'Size', 'Job', 'Status', 'Progress', 'Result'].map((t) => h('th', { class: t === 'Size' ? 'num' : null }, t)))),
      rows),
    h('p', { class: 'muted small' }, 'This list lives in this page; the ', h('a', { href: '#jobs' }, 'Jobs'), ' tab shows the project\'s jobs from the service, also after a reload.'));
}

export function show() {
  void loadAttributes().then((map) => attrs.setRegistered(map));
}
