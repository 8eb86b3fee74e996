// Upload: files dropped on the page or chosen in the file input are sent one by one as raw bytes to
// POST /v3/docsearch/ingest (Content-Disposition names the file, its extension picks the parser); each
// job is then followed live on its status stream until done or failed.
import { api, contentDisposition, watchJob, jobError } from './api.js';
import { h, replace, errorBox, formatBytes, badge } from './dom.js';

let rows;
const queue = [];
let uploading = false;

function addRow(file) {
  const status = h('td', { class: 'job-status' }, badge('queued'));
  const jobCell = h('td', { class: 'mono' }, '—');
  const detail = h('td', { class: 'job-detail' });
  const tr = h('tr', { 'data-filename': file.name, 'data-status': 'queued' },
    h('td', {}, file.name), h('td', { class: 'num' }, formatBytes(file.size)), jobCell, status, detail);
  rows.prepend(tr);
  const set = (state, extra) => {
    tr.dataset.status = state;
    replace(status, badge(state));
    if (extra !== undefined) replace(detail, extra);
  };
  return { tr, jobCell, set };
}

async function ingestOne(file, row) {
  row.set('uploading');
  let job;
  try {
    job = await api('/docsearch/ingest', {
      method: 'POST', body: file,
      headers: { 'content-type': 'application/octet-stream', 'content-disposition': contentDisposition(file.name) },
    });
  } catch (err) {
    row.set('failed', errorBox(err));
    return;
  }
  row.tr.dataset.jobId = job.job_id;
  replace(row.jobCell, job.job_id);
  row.set(job.status?.status ?? 'pending', '');
  // Followed in the background: the next file uploads while this one is parsed and indexed.
  watchJob(job.job_id, (ev) => {
    const error = jobError(ev.error, ev.error_code);
    row.set(ev.status, error ? errorBox(error) : ev.doc_id ? h('span', {}, 'doc ', h('code', {}, ev.doc_id)) : '');
  }).catch((err) => row.set('unknown', errorBox(err)));
}

async function drain() {
  if (uploading) return;
  uploading = true;
  try {
    while (queue.length) {
      const { file, row } = queue.shift();
      await ingestOne(file, row);
    }
  } finally { uploading = false; }
}

function enqueue(files) {
  for (const file of files) queue.push({ file, row: addRow(file) });
  void drain();
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
  rows = h('tbody', { id: 'jobs' });
  replace(section,
    h('h1', {}, 'Upload documents'),
    input, zone,
    h('table', { class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, 'File'), h('th', { class: 'num' }, 'Size'), h('th', {}, 'Job'), h('th', {}, 'Status'), h('th', {}, 'Result'))),
      rows));
}

export function show() {}
