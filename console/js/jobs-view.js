// Jobs: the project's ingest jobs from GET /v3/jobs (newest first, a page at a time), so the jobs a tab
// started are found again after a reload or in another tab, with their state and progress. While the view
// is open and a listed job is unfinished, the loaded pages are read again every 1.5 s (one request for the
// whole list rather than a status stream per job: streams per project are limited). An unfinished job can
// be cancelled (DELETE /v3/jobs/{id}, second click confirms).
import { api, jobError } from './api.js';
import { h, replace, errorBox, formatBytes, formatTime, badge, confirmButton } from './dom.js';
import { progressBar } from './job-progress.js';

const POLL_MS = 1500;
const PAGE = 20;
let els;
let loaded = PAGE;
let nextCursor = null;
let timer;
let visible = false;

function cancelButton(job) {
  return confirmButton({
    label: 'Cancel', confirmLabel: 'Confirm cancel', attrs: { 'data-action': 'cancel' },
    action: async () => {
      try { await api(`/jobs/${encodeURIComponent(job.job_id)}`, { method: 'DELETE' }); } catch (err) { replace(els.status, errorBox(err)); }
      void refresh();
    },
  });
}

function jobRow(job) {
  const error = jobError(job.error);
  const result = error ? errorBox(error) : job.doc_id ? h('span', {}, 'doc ', h('code', {}, job.doc_id)) : job.last_error ? h('span', { class: 'muted' }, `retrying: ${job.last_error}`) : '';
  return h('tr', { 'data-job-id': job.job_id, 'data-status': job.status, 'data-filename': job.properties.file.filename },
    h('td', {}, h('div', {}, job.properties.file.filename), h('code', { class: 'small' }, job.job_id)),
    h('td', { class: 'num' }, formatBytes(job.properties.file.size)),
    h('td', { class: 'nowrap' }, formatTime(job.created_at)),
    h('td', {}, badge(job.status)),
    h('td', { class: 'job-progress-cell' }, progressBar(job)),
    h('td', { class: 'job-detail' }, result),
    h('td', {}, job.is_terminal ? null : cancelButton(job)));
}

function render(jobs) {
  if (!jobs.length) {
    replace(els.table, h('p', { class: 'empty' }, els.filter.value ? 'No job in this state.' : 'No jobs yet. Upload files on the Upload tab.'));
  } else {
    replace(els.table, h('table', { class: 'grid', id: 'job-list' },
      h('thead', {}, h('tr', {}, ['File', 'Size', 'Created', 'Status', 'Progress', 'Result', ''].map((t) => h('th', { class: t === 'Size' ? 'num' : null }, t)))),
      h('tbody', {}, jobs.map(jobRow))));
  }
  els.more.hidden = !nextCursor;
}

/** Read the loaded pages again (one request of up to 100, then by cursor) and re-render. */
async function refresh() {
  clearTimeout(timer);
  const status = els.filter.value;
  const jobs = [];
  let cursor;
  try {
    do {
      const q = new URLSearchParams({ limit: String(Math.min(100, loaded - jobs.length)) });
      if (status) q.set('status', status);
      if (cursor) q.set('cursor', cursor);
      const page = await api(`/jobs?${q}`);
      jobs.push(...page.jobs);
      cursor = page.next_cursor;
    } while (cursor && jobs.length < loaded);
    nextCursor = cursor;
    replace(els.status);
    replace(els.summary, `${jobs.length}${nextCursor ? '+' : ''} job(s)`, status ? ` · ${status.replace(',', ' or ')}` : '', ` · read ${new Date().toLocaleTimeString(undefined, { hourCycle: 'h23' })}`);
    render(jobs);
  } catch (err) {
    replace(els.status, errorBox(err));
  }
  if (visible && jobs.some((j) => !j.is_terminal)) timer = setTimeout(() => void refresh(), POLL_MS);
}

/** Build the view once. */
export function mount(section) {
  els = {
    filter: h('select', { id: 'job-filter', 'aria-label': 'Status', onchange: () => { loaded = PAGE; void refresh(); } },
      h('option', { value: '' }, 'all states'), h('option', { value: 'pending,processing' }, 'unfinished'),
      h('option', { value: 'done' }, 'done'), h('option', { value: 'failed' }, 'failed')),
    summary: h('span', { class: 'muted', id: 'job-summary' }),
    status: h('div'),
    table: h('div'),
    more: h('button', { type: 'button', id: 'jobs-more', hidden: true, onclick: () => { loaded += PAGE; void refresh(); } }, 'Show older jobs'),
  };
  replace(section,
    h('div', { class: 'title-row' }, h('h1', {}, 'Jobs'),
      h('div', { class: 'row' }, els.filter, h('button', { type: 'button', id: 'jobs-refresh', onclick: () => void refresh() }, 'Refresh'))),
    h('p', { class: 'muted' }, 'The project\'s ingest jobs as the service keeps them, newest first; unfinished ones update while this tab is open. ', els.summary),
    els.status, els.table, h('div', { class: 'more-row' }, els.more));
}

export function show() {
  visible = true;
  void refresh();
}

export function hide() {
  visible = false;
  clearTimeout(timer);
}
