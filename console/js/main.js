// Console shell: shows the sign-in screen until there is a session, then the tab the URL hash names
// (#upload, #search, #docs, #buckets, #evaluations). Each view module exports `mount(section)` once and `show()` on
// every visit; `hide()` (optional) stops its timers.
import { loadSession, clearSession } from './api.js';
import { mountLogin } from './login-view.js';
import * as upload from './upload-view.js';
import * as search from './search-view.js';
import * as docs from './documents-view.js';
import * as buckets from './buckets-view.js';
import * as evaluations from './evaluations-view.js';

const views = { upload, search, docs, buckets, evaluations };
const mounted = new Set();
let current;

const $ = (id) => document.getElementById(id);

function sessionLabel(session) {
  const who = session.email ?? (session.kind === 'project_key' ? 'project key' : 'account key');
  const project = session.projectName ?? session.projectId ?? '';
  return `${who} · ${project}`;
}

function showLogin(message) {
  current?.hide?.();
  current = undefined;
  for (const section of document.querySelectorAll('.view')) section.hidden = true;
  $('tabs').hidden = true;
  $('who').hidden = true;
  const section = $('view-login');
  // Views hold the previous project's state (job rows, task cards): after a re-login start afresh.
  mountLogin(section, { message, onSignedIn: () => (mounted.size ? location.reload() : route()) });
  section.hidden = false;
}

function route() {
  const session = loadSession();
  if (!session) return showLogin();
  $('view-login').hidden = true;
  $('tabs').hidden = false;
  $('who').hidden = false;
  $('who-label').textContent = sessionLabel(session);
  const name = location.hash.slice(1) in views ? location.hash.slice(1) : 'upload';
  const view = views[name];
  if (current && current !== view) current.hide?.();
  for (const [key] of Object.entries(views)) $(`view-${key}`).hidden = key !== name;
  for (const tab of document.querySelectorAll('#tabs a')) tab.classList.toggle('active', tab.dataset.view === name);
  if (!mounted.has(name)) { view.mount($(`view-${name}`)); mounted.add(name); }
  current = view;
  view.show();
}

$('sign-out').addEventListener('click', () => {
  clearSession();
  location.replace(location.pathname);
});
// Any 401 from the API (expired session, deleted project) returns to the sign-in screen.
window.addEventListener('console:unauthorized', (ev) => {
  if (!loadSession()) return;
  clearSession();
  showLogin(ev.detail?.message ?? 'Your session ended; sign in again.');
});
window.addEventListener('hashchange', route);
route();
