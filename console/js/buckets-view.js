// Bucket tasks: tasks whose ids the user enters here (kept per project in sessionStorage) are polled on
// GET /v3/docsearch/ingestBucket/{id} at the task's own polling_guidance interval while the tab is open;
// each card shows state, progress and, when files failed, the first page of per-file failures.
// Pause, resume and cancel call the task's sub-paths.
import { api, loadSession } from './api.js';
import { h, replace, errorBox, badge, formatBytes, formatTime } from './dom.js';

const TERMINAL = new Set(['done', 'done_with_errors', 'failed']);
const cards = new Map();
let els;
let visible = false;

const storageKey = () => `docsearch.console.tasks.${loadSession()?.projectId ?? 'key'}`;
const savedIds = () => { try { return JSON.parse(sessionStorage.getItem(storageKey()) ?? '[]'); } catch { return []; } };
const saveIds = () => sessionStorage.setItem(storageKey(), JSON.stringify([...cards.keys()]));

function progressBlock(task) {
  const p = task.progress;
  const finished = p.files_done + p.files_failed + p.files_cancelled;
  const bar = h('progress', { max: Math.max(p.files_found, 1), value: finished });
  if (!p.listing_complete && !TERMINAL.has(task.state)) bar.removeAttribute('value');
  return h('div', { class: 'progress' }, bar,
    h('div', { class: 'muted' }, `${finished} of ${p.files_found}${p.listing_complete ? '' : '+'} files · ${p.files_done} done, ${p.files_failed} failed, `
      + `${p.files_in_flight} in flight, ${p.files_pending} pending · ${formatBytes(p.bytes_ingested)} of ${formatBytes(p.bytes_found)}`));
}

async function failuresBlock(id) {
  try {
    const page = await api(`/docsearch/ingestBucket/${encodeURIComponent(id)}/failures?limit=20`);
    return h('table', { class: 'grid small' }, h('thead', {}, h('tr', {}, h('th', {}, 'Key'), h('th', {}, 'Error'), h('th', {}, 'When'))),
      h('tbody', {}, page.failures.map((f) => h('tr', {}, h('td', { class: 'mono' }, f.key),
        h('td', {}, h('code', {}, f.error_code ?? 'error'), ' ', f.error_message ?? ''), h('td', {}, formatTime(f.failed_at))))));
  } catch (err) { return errorBox(err); }
}

function actions(id, task) {
  const act = (label, method, sub) => h('button', {
    type: 'button', class: 'small',
    onclick: async () => {
      try { await api(`/docsearch/ingestBucket/${encodeURIComponent(id)}${sub}`, { method }); } catch (err) { replace(cards.get(id).msg, errorBox(err)); }
      void poll(id);
    },
  }, label);
  if (TERMINAL.has(task.state)) return null;
  return h('div', { class: 'row' }, task.state.startsWith('paused') ? act('Resume', 'POST', '/resume') : act('Pause', 'POST', '/pause'),
    task.cancelled ? null : act('Cancel', 'DELETE', ''));
}

async function poll(id) {
  const card = cards.get(id);
  if (!card) return;
  clearTimeout(card.timer);
  let delay = 10;
  try {
    const task = await api(`/docsearch/ingestBucket/${encodeURIComponent(id)}`);
    const failures = task.progress.files_failed > 0 ? await failuresBlock(id) : null;
    replace(card.body, h('div', { class: 'row' }, badge(task.state), h('span', {}, task.state_description)),
      h('div', { class: 'muted' }, `${task.source.type}://${task.source.bucket}/${task.source.prefix}`, task.filter_glob ? ` · ${task.filter_glob}` : '',
        ` · started ${formatTime(task.started_at)}`, task.finished_at ? ` · finished ${formatTime(task.finished_at)}` : ''),
      progressBlock(task), task.stop_reason ? h('p', {}, 'Stop reason: ', h('code', {}, task.stop_reason)) : null,
      actions(id, task), failures);
    replace(card.msg);
    if (TERMINAL.has(task.state)) return;
    delay = Math.min(Math.max(task.polling_guidance.min_interval_seconds, 2), 30);
  } catch (err) {
    replace(card.msg, errorBox(err));
    if (err.status === 404) return void replace(card.body);
  }
  if (visible) card.timer = setTimeout(() => poll(id), delay * 1000);
}

function addCard(id) {
  if (cards.has(id)) return void poll(id);
  const body = h('div', {}, h('span', { class: 'muted' }, 'Loading…'));
  const msg = h('div');
  const remove = h('button', { type: 'button', class: 'link', onclick: () => { clearTimeout(cards.get(id)?.timer); cards.get(id)?.el.remove(); cards.delete(id); saveIds(); } }, 'Remove');
  const el = h('article', { class: 'card task', 'data-task-id': id }, h('div', { class: 'title-row' }, h('h2', {}, h('code', {}, id)), remove), msg, body);
  cards.set(id, { el, body, msg, timer: undefined });
  els.list.prepend(el);
  saveIds();
  void poll(id);
}

/** Build the view once. */
export function mount(section) {
  const input = h('input', { type: 'text', id: 'task-id', placeholder: 'bucket_ingest_task_id', required: true, autocomplete: 'off' });
  els = { list: h('div', { class: 'tasks' }) };
  replace(section,
    h('h1', {}, 'Bucket tasks'),
    h('p', { class: 'muted' }, 'Create tasks with POST /v3/docsearch/ingestBucket; enter a task id to follow it here.'),
    h('form', { class: 'row', onsubmit: (ev) => { ev.preventDefault(); if (input.value.trim()) addCard(input.value.trim()); input.value = ''; } },
      input, h('button', { type: 'submit', id: 'task-watch' }, 'Watch')),
    els.list);
  for (const id of savedIds()) addCard(id);
}

export function show() {
  visible = true;
  for (const id of cards.keys()) void poll(id);
}

export function hide() {
  visible = false;
  for (const card of cards.values()) clearTimeout(card.timer);
}
